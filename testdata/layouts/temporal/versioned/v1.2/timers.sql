CREATE TABLE timers (namespace_id bytea NOT NULL, timer_id varchar(255) NOT NULL, PRIMARY KEY (namespace_id, timer_id));
