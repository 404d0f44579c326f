-- Silent for not-null-dropped: NOT NULL is set again.
CREATE TABLE shipments (
    order_id bigint NOT NULL,
    carrier text NOT NULL
);
CREATE UNIQUE INDEX shipments_once ON shipments (order_id, carrier);
ALTER TABLE shipments ALTER COLUMN carrier DROP NOT NULL;
ALTER TABLE shipments ALTER COLUMN carrier SET NOT NULL;

-- Silent for not-null-dropped: the column was nullable before the index
-- existed; no migration opened this hole, nullable-key reports it.
CREATE TABLE invoices (
    customer_id bigint NOT NULL,
    number text NOT NULL
);
ALTER TABLE invoices ALTER COLUMN number DROP NOT NULL;
CREATE UNIQUE INDEX invoices_number ON invoices (customer_id, number); -- want: optional-unique "number may be NULL, so invoices without number are not deduplicated within customer_id"

-- Silent: the same migration closes the hole with the partial split.
CREATE TABLE subscriptions (
    account_id bigint NOT NULL,
    plan text NOT NULL
);
CREATE UNIQUE INDEX subscriptions_plan ON subscriptions (account_id, plan);
ALTER TABLE subscriptions ALTER COLUMN plan DROP NOT NULL;
CREATE UNIQUE INDEX subscriptions_no_plan ON subscriptions (account_id) WHERE plan IS NULL;

-- Silent: the index is NULLS NOT DISTINCT.
CREATE TABLE seats (
    org_id bigint NOT NULL,
    email text NOT NULL
);
CREATE UNIQUE INDEX seats_email ON seats (org_id, email) NULLS NOT DISTINCT;
ALTER TABLE seats ALTER COLUMN email DROP NOT NULL;

-- Silent: the index only keeps rows where the column is present.
CREATE TABLE coupons (
    campaign_id bigint NOT NULL,
    code text NOT NULL
);
CREATE UNIQUE INDEX coupons_code ON coupons (campaign_id, code) WHERE code IS NOT NULL;
ALTER TABLE coupons ALTER COLUMN code DROP NOT NULL;

-- Silent for not-null-dropped: one key part, "unique when present".
CREATE TABLE users (
    id bigint PRIMARY KEY,
    email text NOT NULL
);
CREATE UNIQUE INDEX users_email ON users (email);
ALTER TABLE users ALTER COLUMN email DROP NOT NULL; -- want: optional-unique "email may be NULL"

-- Silent: the dropped NOT NULL is on a column no unique index uses.
CREATE TABLE notes (
    author_id bigint NOT NULL,
    body text NOT NULL,
    UNIQUE (author_id)
);
ALTER TABLE notes ALTER COLUMN body DROP NOT NULL;
