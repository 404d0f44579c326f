# A Rails 8 dump: Schema[8.0], unique constraints (Rails 7.1+), virtual
# columns, schema-qualified tables.

ActiveRecord::Schema[8.0].define(version: 2025_01_15_101010) do
  create_schema "billing"

  enable_extension "pg_catalog.plpgsql"

  create_table "billing.invoices", force: :cascade do |t|
    t.bigint "customer_id", null: false
    t.string "series"
    t.integer "number", null: false
    t.string "number_text", as: "(number)::text", stored: true
    t.unique_constraint ["customer_id", "series", "number"], name: "invoices_customer_series_number" # want: nullable-key "series may be NULL"
    t.unique_constraint ["customer_id", "number_text"], deferrable: :deferred, nulls_not_distinct: true, name: "invoices_customer_number" # want: deferrable-unique "DEFERRABLE"
  end
end
