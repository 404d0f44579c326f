-- A UNIQUE constraint added by ALTER TABLE on a nullable column.
CREATE TABLE partners (
    id bigint PRIMARY KEY,
    vat_number text
);
ALTER TABLE partners ADD CONSTRAINT partners_vat UNIQUE (vat_number); -- want: optional-unique "partners\.partners_vat \(vat_number\): vat_number may be NULL"
