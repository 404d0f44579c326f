DROP TABLE usage_events;
