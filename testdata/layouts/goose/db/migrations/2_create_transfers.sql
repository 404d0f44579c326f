-- +goose Up
CREATE TABLE transfers (
    id uuid PRIMARY KEY,
    account_id uuid NOT NULL REFERENCES accounts (id),
    request_id text
);

-- +goose StatementBegin
CREATE FUNCTION touch_transfer() RETURNS trigger AS $$
BEGIN
    NEW.request_id := coalesce(NEW.request_id, gen_random_uuid()::text);
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION touch_transfer();
DROP TABLE transfers;
