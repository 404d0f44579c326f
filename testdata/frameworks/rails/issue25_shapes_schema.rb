# The shapes of issue 25 as a Rails 7.1 dump writes them: t.references
# without null: false leaves both ends of a link row nullable, a dump keeps
# add_foreign_key and a polymorphic x_type beside its x_id, and soft
# delete is a nullable deleted_at. Each line's want is the SQL fixture's
# (testdata/rules/nullable-key), first fix included, in Rails' words.

ActiveRecord::Schema[7.1].define(version: 2025_02_03_040506) do
  enable_extension "plpgsql"

  create_table "users", force: :cascade do |t|
    t.string "name", null: false
  end

  create_table "gems", force: :cascade do |t|
    t.string "name", null: false
  end

  # Shape 1: a link row whose ends t.references left nullable.
  create_table "ownerships", force: :cascade do |t|
    t.bigint "user_id"
    t.bigint "gem_id"
    t.datetime "created_at", null: false
    t.index ["user_id", "gem_id"], name: "index_ownerships_on_user_id_and_gem_id", unique: true # want: nullable-key/warning "user_id and gem_id may be NULL, so two ownerships with no user_id \(or no gem_id\) are both accepted; if every ownership has a user_id and a gem_id, declare them NOT NULL" fix "^Rails migration: make user_id and gem_id NOT NULL$"
  end

  # Near miss: the gem's own optional name under a NOT NULL gem.
  create_table "gem_aliases", force: :cascade do |t|
    t.bigint "gem_id", null: false
    t.string "name"
    t.index ["gem_id", "name"], name: "index_gem_aliases_on_gem_id_and_name", unique: true # want: optional-unique/info "name may be NULL, so gem_aliases without name are not deduplicated within gem_id"
  end

  create_table "lessons", force: :cascade do |t|
    t.string "title", null: false
  end

  # Shape 3: an identity beside a nullable reference.
  create_table "progress_events", force: :cascade do |t|
    t.string "identifier", null: false
    t.bigint "lesson_id"
    t.index ["identifier", "lesson_id"], name: "index_progress_events_on_identifier_and_lesson_id", unique: true # want: nullable-key/warning "lesson_id may be NULL, so two progress_events with the same identifier and no lesson_id are both accepted; if every progress_event has a lesson_id, declare it NOT NULL" fix "^Rails migration: rebuild index_progress_events_on_identifier_and_lesson_id NULLS NOT DISTINCT"
  end

  # Shape 4: a polymorphic parent, a nullable kind and a nullable name.
  create_table "custom_fields", force: :cascade do |t|
    t.string "owner_type"
    t.bigint "owner_id"
    t.string "kind"
    t.string "name"
    t.index ["owner_type", "owner_id", "kind", "name"], name: "index_custom_fields_on_owner_kind_name", unique: true # want: nullable-key/warning "owner_type, owner_id and kind may be NULL, so two custom_fields with the same name and no owner_type \(or no owner_id, or no kind\) are both accepted" fix "^Rails migration: add a NULLS NOT DISTINCT unique index for rows where name is present" optional-unique/info "name may be NULL, so custom_fields without name are not deduplicated within owner_type, owner_id and kind"
  end

  create_table "products", force: :cascade do |t|
    t.string "name", null: false
  end

  # Shape 5: a soft-delete marker in the key; the near miss keeps it in
  # the predicate only.
  create_table "variants", force: :cascade do |t|
    t.bigint "product_id", null: false
    t.string "code", null: false
    t.datetime "deleted_at"
    t.index ["product_id", "deleted_at"], name: "index_variants_on_product_id_and_deleted_at", unique: true # want: nullable-key/warning "deleted_at may be NULL, so two variants with the same product_id and no deleted_at are both accepted; deleted_at is NULL on every live row" fix "^Rails migration: replace index_variants_on_product_id_and_deleted_at by a unique index over the live rows"
  end

  create_table "bundles", force: :cascade do |t|
    t.bigint "product_id", null: false
    t.string "code", null: false
    t.datetime "deleted_at"
    t.index ["product_id", "code"], name: "index_bundles_on_product_id_and_code", unique: true, where: "(deleted_at IS NULL)"
  end

  create_table "tags", force: :cascade do |t|
    t.string "name", null: false
  end

  # Shape 6: an optional actor beside a full identity.
  create_table "taggings", force: :cascade do |t|
    t.bigint "tag_id", null: false
    t.string "taggable_type", null: false
    t.bigint "taggable_id", null: false
    t.string "tagger_type"
    t.bigint "tagger_id"
    t.string "context", limit: 128, null: false
    t.index ["tag_id", "taggable_id", "taggable_type", "context", "tagger_id", "tagger_type"], name: "taggings_idx", unique: true # want: nullable-key/warning "tagger_id and tagger_type may be NULL, so two taggings with the same tag_id, taggable_id, taggable_type and context and no tagger_id \(or no tagger_type\) are both accepted$" fix "^Rails migration: rebuild taggings_idx NULLS NOT DISTINCT"
  end

  add_foreign_key "ownerships", "users"
  add_foreign_key "ownerships", "gems"
  add_foreign_key "gem_aliases", "gems"
  add_foreign_key "progress_events", "lessons"
  add_foreign_key "variants", "products"
  add_foreign_key "bundles", "products"
  add_foreign_key "taggings", "tags"
end
