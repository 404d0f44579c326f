-- The split index itself has a hole through kind, so it covers nothing.
CREATE TABLE contacts (
    account bigint NOT NULL,
    kind text,
    address text NOT NULL,
    namespace text
);
CREATE UNIQUE INDEX contacts_key ON contacts (account, kind, address, namespace); -- want: nullable-key "kind and namespace may be NULL, so two contacts with the same account and address and no kind \(or no namespace\) are both accepted"
CREATE UNIQUE INDEX contacts_key_null ON contacts (account, kind, address) WHERE namespace IS NULL; -- want: nullable-key "kind may be NULL, so among rows where namespace IS NULL, two contacts"
