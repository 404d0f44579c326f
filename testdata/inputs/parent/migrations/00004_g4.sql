-- +goose Up
CREATE TABLE g4 (id bigint PRIMARY KEY);

-- +goose Down
DROP TABLE g4;
