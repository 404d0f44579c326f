-- A later DROP NOT NULL turns a key into an optional one.
CREATE TABLE vouchers (
    id bigint PRIMARY KEY,
    code text NOT NULL
);
CREATE UNIQUE INDEX vouchers_code ON vouchers (code);
ALTER TABLE vouchers ALTER COLUMN code DROP NOT NULL; -- want: optional-unique "code may be NULL"
