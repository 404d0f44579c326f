-- The finding sits at the rename, where the index got the name it is known
-- by now, and names it as it is now.
CREATE TABLE shops (id bigint PRIMARY KEY);
CREATE TABLE orders (
    shop_id bigint NOT NULL,
    external_id text
);
CREATE UNIQUE INDEX orders_ext_tmp ON orders (shop_id, external_id);
ALTER INDEX orders_ext_tmp RENAME TO orders_external_id; -- want: optional-unique "^orders\.orders_external_id \(shop_id, external_id\): external_id may be NULL"
