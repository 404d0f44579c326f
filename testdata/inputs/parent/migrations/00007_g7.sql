-- +goose Up
CREATE TABLE g7 (id bigint PRIMARY KEY);

-- +goose Down
DROP TABLE g7;
