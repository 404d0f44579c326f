-- Issue 25, shape 7: NULL meaning a wider scope. A quarantine entry with
-- no item, or no node, holds at the wider level; the same wider-level
-- entry goes in twice. The node and the item are references, never the
-- entry's own optional value, and the path is left beside their NULL rows.
-- NULL is a value here ("at the wider level"), so NULLS NOT DISTINCT comes
-- first.
CREATE TABLE stores (id bigint PRIMARY KEY);
CREATE TABLE nodes (id bigint PRIMARY KEY);
CREATE TABLE items (id bigint PRIMARY KEY);
CREATE TABLE quarantines (
    id bigserial PRIMARY KEY,
    store_id bigint NOT NULL REFERENCES stores (id),
    node_id bigint REFERENCES nodes (id),
    item_id bigint REFERENCES items (id),
    path text NOT NULL
);
CREATE UNIQUE INDEX quarantines_scope_path ON quarantines (store_id, node_id, item_id, path); -- want: nullable-key/warning "^quarantines\.quarantines_scope_path \(store_id, node_id, item_id, path\): node_id and item_id may be NULL, so two quarantines with the same store_id and path and no node_id \(or no item_id\) are both accepted; if every quarantine has a node_id and an item_id, declare them NOT NULL" fix "^rebuild quarantines_scope_path NULLS NOT DISTINCT"

-- Near miss: the portable split for every combination of the two covers
-- it, silent.
CREATE TABLE held_items (
    id bigserial PRIMARY KEY,
    store_id bigint NOT NULL REFERENCES stores (id),
    node_id bigint REFERENCES nodes (id),
    item_id bigint REFERENCES items (id),
    path text NOT NULL
);
CREATE UNIQUE INDEX held_items_scope_path ON held_items (store_id, node_id, item_id, path);
CREATE UNIQUE INDEX held_items_no_node ON held_items (store_id, item_id, path) WHERE node_id IS NULL AND item_id IS NOT NULL;
CREATE UNIQUE INDEX held_items_no_item ON held_items (store_id, node_id, path) WHERE item_id IS NULL AND node_id IS NOT NULL;
CREATE UNIQUE INDEX held_items_neither ON held_items (store_id, path) WHERE node_id IS NULL AND item_id IS NULL;
