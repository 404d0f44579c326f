-- Positive: DROP DOMAIN ... CASCADE drops the columns of that type, and the
-- unique index over one of them goes too.
CREATE DOMAIN order_ref AS text CHECK (VALUE <> '');
CREATE TABLE orders (
    shop_id bigint NOT NULL,
    ref order_ref NOT NULL
);
CREATE UNIQUE INDEX orders_ref ON orders (shop_id, ref);
DROP DOMAIN order_ref CASCADE; -- want: unique-dropped "orders.orders_ref \(shop_id, ref\): the unique index goes with the dropped column ref"
