-- Expression key parts: provable, or not.
CREATE TABLE customers (
    account_id bigint NOT NULL,
    email text,
    handle text NOT NULL,
    data jsonb
);
CREATE UNIQUE INDEX customers_email ON customers (account_id, lower(email)); -- want: nullable-key "lower\(email\) may be NULL, so two customers with the same account_id and a NULL lower\(email\) are both accepted"
CREATE UNIQUE INDEX customers_email_c ON customers (account_id, coalesce(email, ''));
CREATE UNIQUE INDEX customers_handle ON customers (account_id, lower(handle));
CREATE UNIQUE INDEX customers_ext ON customers (account_id, (data ->> 'external_id')); -- want: nullable-key "may be NULL, so two customers with the same account_id and a NULL"
CREATE UNIQUE INDEX customers_ext_present ON customers (account_id, (data ->> 'ref')) WHERE (data ->> 'ref') IS NOT NULL;
