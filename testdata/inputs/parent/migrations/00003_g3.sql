-- +goose Up
CREATE TABLE g3 (id bigint PRIMARY KEY);

-- +goose Down
DROP TABLE g3;
