ALTER TABLE devices ADD COLUMN owner_id bigint;
---- create above / drop below ----
ALTER TABLE devices DROP COLUMN owner_id;
