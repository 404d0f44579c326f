-- Silent: NULLS NOT DISTINCT allows one NULL row only.
CREATE TABLE settings (
    id bigint PRIMARY KEY,
    scope text
);
CREATE UNIQUE INDEX settings_scope ON settings (scope) NULLS NOT DISTINCT;
