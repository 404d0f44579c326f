-- Silent: a primary key makes its columns NOT NULL.
CREATE TABLE ledger_lines (
    ledger_id bigint,
    line_no int,
    PRIMARY KEY (ledger_id, line_no)
);
CREATE TABLE ledger_tags (
    ledger_id bigint,
    tag text
);
ALTER TABLE ledger_tags ADD PRIMARY KEY (ledger_id, tag);
CREATE UNIQUE INDEX ledger_tags_again ON ledger_tags (tag, ledger_id);
