-- +goose Up
CREATE TABLE g8 (id bigint PRIMARY KEY);

-- +goose Down
DROP TABLE g8;
