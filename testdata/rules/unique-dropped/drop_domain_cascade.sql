-- Silent: DROP DOMAIN ... CASCADE drops the key column of that type, and
-- the unique index over it goes too: nothing is left to keep unique.
CREATE DOMAIN order_ref AS text CHECK (VALUE <> '');
CREATE TABLE orders (
    shop_id bigint NOT NULL,
    ref order_ref NOT NULL
);
CREATE UNIQUE INDEX orders_ref ON orders (shop_id, ref);
DROP DOMAIN order_ref CASCADE;

-- Positive: the domain is the type of a column the predicate reads; the
-- key survives without its index.
CREATE DOMAIN stage AS text;
CREATE TABLE shipments (
    shop_id bigint NOT NULL,
    tracking_no text NOT NULL,
    state stage
);
CREATE UNIQUE INDEX shipments_tracking ON shipments (shop_id, tracking_no) WHERE state = 'open';
DROP DOMAIN stage CASCADE; -- want: unique-dropped "shipments.shipments_tracking \(shop_id, tracking_no\): the unique index goes with the dropped column state"
