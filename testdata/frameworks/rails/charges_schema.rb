# This file is auto-generated from the current state of the database. Instead
# of editing this file, please use the migrations feature of Active Record to
# incrementally modify your database, and then regenerate this schema definition.

ActiveRecord::Schema[7.1].define(version: 2024_05_01_120000) do
  # These are extensions that must be enabled in order to support this database
  enable_extension "plpgsql"

  create_table "accounts", force: :cascade do |t|
    t.string "name", null: false
    t.datetime "created_at", null: false
    t.datetime "updated_at", null: false
  end

  # The seed's hole, word for word: namespace is nullable.
  create_table "charges", force: :cascade do |t|
    t.bigint "account_id", null: false
    t.string "kind", null: false
    t.string "address", null: false
    t.string "namespace"
    t.integer "amount_cents", null: false
    t.datetime "created_at", null: false
    t.datetime "updated_at", null: false
    t.index ["account_id", "kind", "address", "namespace"], name: "index_charges_on_account_id_and_kind_and_address_and_namespace", unique: true # want: nullable-key "namespace may be NULL"
  end

  add_foreign_key "charges", "accounts"
end
