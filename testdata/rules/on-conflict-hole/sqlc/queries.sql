-- name: RecordUsageEvent :exec
INSERT INTO usage_events (organization_id, external_subscription_id, transaction_id, amount)
VALUES ($1, $2, $3, $4)
ON CONFLICT (organization_id, external_subscription_id, transaction_id) DO NOTHING;

-- name: UpsertUsageEvent :exec
INSERT INTO usage_events (organization_id, external_subscription_id, transaction_id, amount)
VALUES (sqlc.arg(org), sqlc.narg(sub), sqlc.arg(tx), @amount)
ON CONFLICT (organization_id, transaction_id) DO UPDATE SET amount = excluded.amount;

-- name: ListUsageEvents :many
SELECT * FROM usage_events WHERE organization_id = $1;
