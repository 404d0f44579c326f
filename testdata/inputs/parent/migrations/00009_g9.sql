-- +goose Up
CREATE TABLE g9 (id bigint PRIMARY KEY);

-- +goose Down
DROP TABLE g9;
