-- A later migration drops NOT NULL: the hole opens at the index's position.
CREATE TABLE deliveries (
    message_id bigint NOT NULL,
    recipient text NOT NULL
);
CREATE UNIQUE INDEX deliveries_once ON deliveries (message_id, recipient); -- want: nullable-key "recipient may be NULL, so two deliveries with the same message_id and no recipient"
ALTER TABLE deliveries ALTER COLUMN recipient DROP NOT NULL; -- want: not-null-dropped "ALTER COLUMN recipient DROP NOT NULL opens a hole in deliveries.deliveries_once \(message_id, recipient\)"
