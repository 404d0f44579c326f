-- name: ClaimCharge :one
INSERT INTO charges (account_id, kind, address, namespace)
VALUES ($1, $2, $3, $4)
ON CONFLICT (account_id, kind, address, namespace) DO NOTHING
RETURNING id;
