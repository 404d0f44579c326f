# A Rails 7.1 dump with every construct idemcheck reads. Each hole has a near
# miss beside it that must stay silent.

ActiveRecord::Schema[7.1].define(version: 2024_06_01_000000) do
  # These are extensions that must be enabled in order to support this database
  enable_extension "pgcrypto"
  enable_extension "plpgsql"

  # Custom types defined in this database.
  # Note that some types may not work with other database engines. Be careful if changing database.
  create_enum "payout_state", ["pending", "sent", "failed"]

  # id: :uuid with a default; null: false is the near miss for the hole below.
  create_table "payouts", id: :uuid, default: -> { "gen_random_uuid()" }, force: :cascade do |t|
    t.uuid "merchant_id", null: false
    t.string "reference", null: false
    t.string "batch"
    t.enum "state", default: "pending", null: false, enum_type: "payout_state"
    t.decimal "amount", precision: 12, scale: 2, null: false
    t.jsonb "metadata", default: {}, null: false
    t.string "tags", default: [], array: true
    t.datetime "created_at", null: false
    t.datetime "updated_at", null: false
    t.index ["merchant_id", "reference", "batch"], name: "index_payouts_on_merchant_id_and_reference_and_batch", unique: true # want: nullable-key "batch may be NULL"
    t.index ["merchant_id", "created_at"], name: "index_payouts_on_merchant_id_and_created_at", order: { created_at: :desc }, include: ["amount"]
    t.index ["metadata"], name: "index_payouts_on_metadata", using: :gin, opclass: :jsonb_path_ops
    t.index "lower((reference)::text)", name: "index_payouts_on_lower_reference"
  end

  # where: "namespace IS NOT NULL" makes the index "unique when present" on
  # purpose; nulls_not_distinct: true closes the hole. Both stay silent.
  create_table "claims", id: :serial, force: :cascade do |t|
    t.bigint "account_id", null: false
    t.string "kind", null: false
    t.string "address", null: false
    t.string "namespace"
    t.index ["account_id", "kind", "address", "namespace"], name: "index_claims_present", unique: true, where: "(namespace IS NOT NULL)"
    t.index ["account_id", "kind", "address", "namespace"], name: "index_claims_nnd", unique: true, nulls_not_distinct: true
  end

  # A string primary key and id: false with a composite primary key.
  create_table "currencies", primary_key: "code", id: :string, force: :cascade do |t|
    t.string "name", null: false
  end

  create_table "exchange_rates", primary_key: ["base", "quote"], force: :cascade do |t|
    t.string "base", null: false
    t.string "quote", null: false
    t.decimal "rate", null: false
  end

  create_table "organizations", force: :cascade do |t|
    t.string "name", null: false
  end

  create_table "memberships", id: false, force: :cascade do |t|
    t.references "organization", null: false, foreign_key: true
    t.belongs_to "owner", polymorphic: true, null: false, index: { unique: true, name: "index_memberships_on_owner" }
    t.references "invited_by", index: false
    t.timestamps
  end

  # A CHECK that forces the column is the near miss; one that does not force
  # it (amount_cents > 0 passes when NULL) leaves the hole.
  create_table "refunds", force: :cascade do |t|
    t.bigint "charge_id", null: false
    t.string "reason_code"
    t.string "external_id"
    t.integer "amount_cents"
    t.check_constraint "reason_code IS NOT NULL", name: "refunds_reason_code_present"
    t.check_constraint "amount_cents > 0"
    t.index ["charge_id", "reason_code", "external_id"], name: "index_refunds_on_charge_reason_external", unique: true # want: nullable-key "external_id may be NULL"
  end

  create_table "transfers", force: :cascade do |t|
    t.bigint "account_id", null: false
    t.string "destination", null: false
    t.string "idempotency_scope"
  end

  add_index "transfers", ["account_id", "destination", "idempotency_scope"], name: "index_transfers_scope", unique: true # want: nullable-key "idempotency_scope may be NULL"
  add_check_constraint "transfers", "idempotency_scope IS NOT NULL", name: "transfers_scope_present", validate: false

  add_foreign_key "payouts", "currencies", column: "batch", primary_key: "code", on_delete: :nullify

  # SQL the dumper cannot express goes through execute, read as SQL.
  execute <<~SQL
    CREATE UNIQUE INDEX index_transfers_destination_batch -- want: nullable-key "idempotency_scope may be NULL"
      ON transfers (account_id, destination, idempotency_scope)
      WHERE destination <> '';
  SQL
end
