-- Positive: PostgreSQL cannot infer an arbiter and raises 42P10 or 42704.
-- This file fails on the server by design: its statements are what the rule
-- exists to catch before they run.
CREATE TABLE orders (
    shop_id bigint NOT NULL,
    order_ref text NOT NULL,
    deleted_at timestamptz
);
CREATE INDEX orders_ref ON orders (shop_id, order_ref);
CREATE UNIQUE INDEX orders_live_ref ON orders (shop_id, order_ref) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX orders_ref_only ON orders (order_ref, shop_id, deleted_at) WHERE deleted_at IS NOT NULL;
INSERT INTO orders VALUES (1, 'r', NULL) ON CONFLICT (shop_id, order_ref) DO NOTHING; -- want: on-conflict-hole "the only unique index over these columns, orders.orders_live_ref \(shop_id, order_ref\), is partial \(WHERE deleted_at IS NULL\) and the conflict target does not repeat its predicate, so PostgreSQL cannot use it and raises 42P10 on the first call; write ON CONFLICT \(shop_id, order_ref\) WHERE deleted_at IS NULL$"
INSERT INTO orders VALUES (1, 'r', NULL) ON CONFLICT (order_ref) DO NOTHING; -- want: on-conflict-hole "^INSERT INTO orders ... ON CONFLICT \(order_ref\) DO NOTHING: orders has no unique index over exactly \(order_ref\), so PostgreSQL raises 42P10"
INSERT INTO orders VALUES (1, 'r', NULL) ON CONFLICT ON CONSTRAINT orders_live_ref DO NOTHING; -- want: on-conflict-hole "orders has no unique constraint orders_live_ref, so PostgreSQL raises 42704"
