CREATE UNIQUE INDEX tickets_event_seat ON tickets (event_id, seat);
