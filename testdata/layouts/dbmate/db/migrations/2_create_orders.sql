-- migrate:up
CREATE TABLE orders (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    shop_id bigint NOT NULL,
    client_token text
);

-- migrate:down
DROP TABLE orders;
