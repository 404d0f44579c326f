-- migrate:up transaction:false
CREATE UNIQUE INDEX CONCURRENTLY orders_shop_client_token ON orders (shop_id, client_token);

-- migrate:down
DROP INDEX orders_shop_client_token;
