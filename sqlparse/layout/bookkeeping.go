package layout

// The tables migration tools create for themselves before the first
// migration runs, each as the tool creates it on PostgreSQL (the table's
// statements in one string). A migration that reads or alters one is
// replayed against it instead of a note that it does not exist (see
// Def.Bookkeeping). Rails' pair is what db:schema:load and db:migrate make;
// a structure.sql dump holds them itself.
const (
	golangMigrateTable = `CREATE TABLE schema_migrations (version bigint NOT NULL PRIMARY KEY, dirty boolean NOT NULL)`
	gooseTable         = `CREATE TABLE goose_db_version (id serial NOT NULL, version_id bigint NOT NULL, is_applied boolean NOT NULL, tstamp timestamp NOT NULL DEFAULT now(), PRIMARY KEY (id))`
	dbmateTable        = `CREATE TABLE schema_migrations (version varchar(128) PRIMARY KEY)`
	sqlMigrateTable    = `CREATE TABLE gorp_migrations (id text NOT NULL PRIMARY KEY, applied_at timestamptz)`
	ternTable          = `CREATE TABLE schema_version (version int4 NOT NULL)`
	flywayTable        = `CREATE TABLE flyway_schema_history (installed_rank int NOT NULL, version varchar(50), description varchar(200) NOT NULL, type varchar(20) NOT NULL, script varchar(1000) NOT NULL, checksum int, installed_by varchar(100) NOT NULL, installed_on timestamp NOT NULL DEFAULT now(), execution_time int NOT NULL, success boolean NOT NULL, CONSTRAINT flyway_schema_history_pk PRIMARY KEY (installed_rank));
CREATE INDEX flyway_schema_history_s_idx ON flyway_schema_history (success)`
	liquibaseChangelog = `CREATE TABLE databasechangelog (id varchar(255) NOT NULL, author varchar(255) NOT NULL, filename varchar(255) NOT NULL, dateexecuted timestamp NOT NULL, orderexecuted int NOT NULL, exectype varchar(10) NOT NULL, md5sum varchar(35), description varchar(255), comments varchar(255), tag varchar(255), liquibase varchar(20), contexts varchar(255), labels varchar(255), deployment_id varchar(10))`
	liquibaseLock      = `CREATE TABLE databasechangeloglock (id int NOT NULL PRIMARY KEY, locked boolean NOT NULL, lockgranted timestamp, lockedby varchar(255))`
	dieselTable        = `CREATE TABLE __diesel_schema_migrations (version varchar(50) PRIMARY KEY NOT NULL, run_on timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP)`
	sqlxTable          = `CREATE TABLE _sqlx_migrations (version bigint PRIMARY KEY, description text NOT NULL, installed_on timestamptz NOT NULL DEFAULT now(), success boolean NOT NULL, checksum bytea NOT NULL, execution_time bigint NOT NULL)`
	refineryTable      = `CREATE TABLE refinery_schema_history (version int4 PRIMARY KEY, name varchar(255), applied_on varchar(255), checksum varchar(255))`
	prismaTable        = `CREATE TABLE _prisma_migrations (id varchar(36) PRIMARY KEY NOT NULL, checksum varchar(64) NOT NULL, finished_at timestamptz, migration_name varchar(255) NOT NULL, logs text, rolled_back_at timestamptz, started_at timestamptz NOT NULL DEFAULT now(), applied_steps_count int NOT NULL DEFAULT 0)`
	railsMigrations    = `CREATE TABLE schema_migrations (version varchar NOT NULL PRIMARY KEY)`
	railsMetadata      = `CREATE TABLE ar_internal_metadata (key varchar NOT NULL PRIMARY KEY, value varchar, created_at timestamp(6) NOT NULL, updated_at timestamp(6) NOT NULL)`
)
