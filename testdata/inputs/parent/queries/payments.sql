-- name: GetPayment :one
SELECT * FROM payments WHERE id = $1;
