-- Silent: a single-column primary key.
CREATE TABLE countries (
    code text PRIMARY KEY
);
CREATE TABLE currencies (
    code text
);
ALTER TABLE currencies ADD CONSTRAINT currencies_pk PRIMARY KEY (code);
