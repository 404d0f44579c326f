# A Rails 6.1 dump (ActiveRecord::Schema.define, no version): NULLS NOT
# DISTINCT cannot be written into it, so the split is the first Rails fix.
# The older add_index-after-create_table form (Rails 4) is read too.

ActiveRecord::Schema.define(version: 2021_03_04_050607) do

  create_table "usage_events", force: :cascade do |t|
    t.bigint "organization_id", null: false
    t.string "external_subscription_id"
    t.string "transaction_id", null: false
    t.string "code", null: false
    t.datetime "timestamp", precision: 6
  end

  add_index "usage_events", ["organization_id", "external_subscription_id", "transaction_id"], name: "index_unique_transaction_id", unique: true, using: :btree
  # The portable split covers the hole above: silent.
  add_index "usage_events", ["organization_id", "transaction_id"], name: "index_usage_events_on_transaction_without_subscription", unique: true, where: "(external_subscription_id IS NULL)"

  create_table "webhook_deliveries", force: :cascade do |t|
    t.bigint "endpoint_id", null: false
    t.string "event_id", null: false
    t.string "attempt_key"
    # idemcheck:ignore nullable-key attempts without a key are retried by the sender and deduplicated there
    t.index ["endpoint_id", "event_id", "attempt_key"], name: "index_webhook_deliveries_on_attempt", unique: true
  end

  create_table "invoices", force: :cascade do |t|
  end

  create_table "payments", force: :cascade do |t|
    t.bigint "invoice_id", null: false
    t.string "provider", null: false
    t.string "provider_reference"
    t.index ["invoice_id", "provider", "provider_reference"], name: "index_payments_on_provider_reference", unique: true # want: optional-unique "provider_reference may be NULL, so payments without provider_reference are not deduplicated within invoice_id and provider"
  end

  create_view "daily_totals", sql_definition: <<-SQL
      SELECT 1 AS one;
  SQL
end
