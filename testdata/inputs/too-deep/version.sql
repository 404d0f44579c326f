CREATE TABLE schema_version (v int NOT NULL);
