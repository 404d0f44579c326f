-- A disjunction forces a key part only when every branch does.
CREATE TABLE endpoints (id bigint PRIMARY KEY);
CREATE TABLE webhooks (
    endpoint_id bigint NOT NULL,
    event_id text,
    topic text
);
CREATE UNIQUE INDEX webhooks_both ON webhooks (endpoint_id, event_id) WHERE event_id = 'a' OR event_id LIKE 'evt_%';
CREATE UNIQUE INDEX webhooks_one ON webhooks (endpoint_id, event_id) WHERE event_id = 'a' OR topic = 'ping'; -- want: optional-unique "event_id may be NULL, so among rows where \(event_id = 'a'\) OR \(topic = 'ping'\), webhooks without event_id are not deduplicated within endpoint_id"
