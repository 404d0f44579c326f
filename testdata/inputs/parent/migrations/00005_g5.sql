-- +goose Up
CREATE TABLE g5 (id bigint PRIMARY KEY);

-- +goose Down
DROP TABLE g5;
