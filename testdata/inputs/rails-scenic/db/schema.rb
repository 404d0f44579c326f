ActiveRecord::Schema[7.1].define(version: 2024_01_02_000000) do
  create_table "events", force: :cascade do |t|
    t.bigint "organization_id", null: false
    t.string "external_subscription_id"
    t.string "transaction_id", null: false
    t.index ["organization_id", "external_subscription_id", "transaction_id"], name: "index_events_unique_transaction", unique: true
  end

  create_view "billable_events", sql_definition: <<-SQL
      SELECT events.id FROM events;
  SQL
end
