-- +goose Up
CREATE TABLE g1 (id bigint PRIMARY KEY);

-- +goose Down
DROP TABLE g1;
