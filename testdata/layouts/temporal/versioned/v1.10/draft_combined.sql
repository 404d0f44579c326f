-- Not named in manifest.json: temporal-sql-tool never runs it.
DROP TABLE signals;
