-- Expression key parts: provable, or not.
CREATE TABLE customers (
    account_id bigint NOT NULL,
    email text,
    handle text NOT NULL,
    data jsonb
);
CREATE UNIQUE INDEX customers_email ON customers (account_id, lower(email)); -- want: optional-unique "lower\(email\) may be NULL, so customers without lower\(email\) are not deduplicated within account_id"
CREATE UNIQUE INDEX customers_email_c ON customers (account_id, coalesce(email, ''));
CREATE UNIQUE INDEX customers_handle ON customers (account_id, lower(handle));
CREATE UNIQUE INDEX customers_ext ON customers (account_id, (data ->> 'external_id')); -- want: optional-unique "may be NULL, so customers without data ->> 'external_id' are not deduplicated within account_id"
CREATE UNIQUE INDEX customers_ext_present ON customers (account_id, (data ->> 'ref')) WHERE (data ->> 'ref') IS NOT NULL;
