-- +goose NO TRANSACTION
-- +goose Up
CREATE UNIQUE INDEX CONCURRENTLY transfers_request_id ON transfers (account_id, request_id);

-- +goose Down
DROP INDEX CONCURRENTLY transfers_request_id;
