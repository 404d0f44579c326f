-- +goose Up
CREATE TABLE accounts (
    id uuid PRIMARY KEY,
    handle text NOT NULL
);

-- +goose Down
DROP TABLE accounts;
