ALTER TABLE signals ADD COLUMN run_id varchar(64);
