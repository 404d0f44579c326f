CREATE TABLE tickets (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), event_id bigint NOT NULL, seat text);
