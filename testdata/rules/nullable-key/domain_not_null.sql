-- Silent: a domain declared NOT NULL, even written schema-qualified.
CREATE DOMAIN request_key AS text NOT NULL;
CREATE TABLE inbox (
    consumer text NOT NULL,
    key public.request_key,
    other request_key
);
CREATE UNIQUE INDEX inbox_key ON inbox (consumer, key, other);
