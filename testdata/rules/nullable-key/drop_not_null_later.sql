-- A later migration drops NOT NULL: the hole opens there, and both findings
-- are placed at the statement that opened it.
CREATE TABLE deliveries (
    message_id bigint NOT NULL,
    recipient text NOT NULL
);
CREATE UNIQUE INDEX deliveries_once ON deliveries (message_id, recipient);
ALTER TABLE deliveries ALTER COLUMN recipient DROP NOT NULL; -- want: nullable-key "recipient may be NULL, so two deliveries with the same message_id and no recipient" not-null-dropped "ALTER COLUMN recipient DROP NOT NULL opens a hole in deliveries.deliveries_once \(message_id, recipient\)"
