-- Positive: the hole opens years after the constraint, at the DROP NOT NULL.
CREATE TABLE deliveries (
    message_id bigint NOT NULL,
    recipient text NOT NULL,
    CONSTRAINT deliveries_once UNIQUE (message_id, recipient)
);
CREATE TABLE audit_log (id bigint PRIMARY KEY);
ALTER TABLE deliveries ALTER COLUMN recipient DROP NOT NULL; -- want: nullable-key "recipient may be NULL" not-null-dropped "^ALTER COLUMN recipient DROP NOT NULL opens a hole in deliveries.deliveries_once \(message_id, recipient\) that NOT NULL kept closed: two deliveries with the same message_id and no recipient are both accepted$"
