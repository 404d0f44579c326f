-- Expression parts: lower(x) of a nullable column may be NULL; coalesce with a constant may not.
CREATE TABLE accounts (
    id bigint PRIMARY KEY,
    email text,
    phone text
);
CREATE UNIQUE INDEX accounts_email ON accounts (lower(email)); -- want: optional-unique "lower\(email\) may be NULL.*a NULL lower\(email\)"
CREATE UNIQUE INDEX accounts_phone ON accounts (coalesce(phone, ''));
