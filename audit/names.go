package audit

// ---------------------------------------------------------------------------
// Words of key-without-unique and idempotency-table-shape.
//
// These are the only name lists the two rules read; each rule's doc prints
// them (wordListDoc), so `idemcheck rules ID` shows exactly what is matched.
// Names never decide alone: a column must also have a key-like type and not
// be a reference, and a table must model claim state (see key_columns.go).
// ---------------------------------------------------------------------------

// keyPurposeStems: a word of a column name that starts with one of these
// says the column is about idempotency or dedupe (idempotency_key,
// dedupe_hash, deduplication_id). Table names are read the same way.
var keyPurposeStems = []string{"idempot", "dedup"}

// keyNouns: the last word of a key column's name. It says the column holds a
// key, not a setting or a time about keys (idempotency_key_expires_at,
// idempotencyKeyTtlMs, dedup_enabled, idempotency_keys are not keys).
var keyNouns = []string{"key", "id", "token", "hash", "digest", "uuid"}

// clientWords: a request id whose name also has one of these is chosen by
// the client, so a retry sends it again (client_request_id).
var clientWords = []string{"client"}

// keyTypes: the types a key column can have, after resolving a domain to its
// base type. Arrays, json, boolean, timestamps, enums and other types are
// never keys.
var keyTypes = []string{"text", "character varying", "varchar", "character", "char", "bpchar", "citext",
	"uuid", "bytea", "bigint", "integer", "smallint", "int", "int2", "int4", "int8"}

// surrogateNames: a primary key column named so (or {table}_id, {table}_uuid
// with the table name singular or plural) holds a row id generated per
// insert, so it gates nothing; identity columns count too.
var surrogateNames = []string{"id", "uuid"}

// duplicateFlagWords: a boolean column with one of these words marks rows
// kept as duplicates on purpose (is_duplicate_event): the table stores one
// key on many rows by design.
var duplicateFlagWords = []string{"duplicate", "duplicated", "dup", "dupe"}

// stateWords: a column with one of these words (and not a timestamp, nor the
// stored response's status code) is a claim state: the table can hold a key
// whose request is still in progress.
var stateWords = []string{"status", "state", "progress", "phase"}

// shapeColumn is a column the idempotency-key pattern expects, recognised
// by fragments of its name.
type shapeColumn struct {
	expected  string
	fragments []string
}

// The four things an idempotency-key table keeps besides the key
// (idempotency-table-shape). statusColumn's fragments also tell the stored
// status code from a claim state.
var (
	leaseColumn = shapeColumn{"locked_at or expires_at",
		[]string{"lock", "lease", "expire", "expiry", "heartbeat"}}
	statusColumn = shapeColumn{"response_code",
		[]string{"response_code", "response_status", "status_code", "http_status", "response_http"}}
	bodyColumn = shapeColumn{"response_body",
		[]string{"response_body", "response_json", "response_payload", "response_data", "response"}}
	fingerprintColumn = shapeColumn{"request_fingerprint",
		[]string{"fingerprint", "request_hash", "payload_hash", "params_hash", "body_hash", "request_digest", "checksum"}}
)

// ---------------------------------------------------------------------------
// Words of nullable-key and optional-unique ("Unique when present").
//
// These are the only name lists the two rules read, and only where the
// structure cannot tell: a foreign key, a boolean or enum type, or a CHECK
// that lists the allowed values decide first (unique_when_present.go).
// `idemcheck rules optional-unique` prints them (wordListDoc).
// ---------------------------------------------------------------------------

var (
	// claimWords mark a claim or dedupe table, in the table's name or in an
	// index name a person chose: a hole there is a duplicate charge.
	claimWords = []string{"idempot", "dedup", "duplicat", "claim", "guard"}

	// discriminatorWords are the last word of a column that sorts rows into
	// a few kinds ("event_type", "status"). A column whose first word is a
	// taskWords one and whose last is a taskNameEnds one (task_name,
	// taskIdentifier) names the kind of work and is one too.
	discriminatorWords = []string{"kind", "type", "category", "status", "state", "role", "level", "mode", "tier",
		"stage", "phase", "channel", "platform", "provider", "source", "currency", "locale", "lang", "language",
		"region", "env", "environment", "action", "operation", "method", "format", "queue", "topic", "task",
		"variant"}
	taskWords    = []string{"task", "job", "queue", "workflow", "event", "action", "operation", "step", "topic"}
	taskNameEnds = []string{"name", "identifier", "slug"}

	// scheduleWords begin the name of a schedule that starts many runs
	// (cron_key, schedule_name): with a taskNameEnds word or "key" last it
	// is a discriminator, and the run's time beside it is the run's
	// identity. The cron expression alone ("cron") is not.
	scheduleWords    = []string{"cron", "schedule"}
	scheduleNameEnds = []string{"name", "identifier", "slug", "key"}

	// rangeBoundWords are the two bounds of a period: two nullable key parts
	// whose names differ only in such a pair (charges_from_datetime and
	// charges_to_datetime) hold one value, the period, and neither is an
	// identity left beside the other.
	rangeBoundWords = [][2]string{{"from", "to"}, {"start", "end"}, {"starts", "ends"}, {"begin", "end"},
		{"since", "until"}}

	// scopeWords end the name of a parent or tenant without an id suffix
	// ("account", "namespace").
	scopeWords = []string{"tenant", "org", "organization", "organisation", "account", "workspace", "team",
		"project", "namespace", "scope", "realm", "parent", "customer", "company", "group"}

	// actorWords end the name of a part that credits the row to someone
	// (tagger_id, author): NULL for rows no one is credited with, never the
	// row's own optional value. A name whose last word before an id is "by"
	// (created_by, approved_by_id) is one too.
	actorWords = []string{"tagger", "author", "creator", "actor", "editor", "uploader", "submitter", "inviter",
		"reviewer", "approver"}

	// softDeleteNames are soft-delete markers by name (deleted_at, and
	// deletedAt alike): a nullable timestamp or date so named is NULL on
	// every live row. A column the schema's partial indexes test with IS
	// NULL is one too, whatever its name.
	softDeleteNames = []string{"deleted_at", "discarded_at", "archived_at", "removed_at"}

	// referenceSuffixes end the name of a column that holds another row's
	// id ("account_id", "runtimeEnvironmentId"): a parent, so scope.
	referenceSuffixes = []string{"id", "uuid", "fk"}

	// requestIDWords make nullable-key an error when a key part that is
	// never NULL is named so: the index deduplicates requests or events.
	requestIDWords = []string{"request", "event", "transaction", "txn", "idempotency", "idempotent", "dedup", "dedupe"}

	// idempotencyKeyWords mark an optional part that is itself an
	// idempotency or dedupe key: the finding then also describes the
	// fallback-key design.
	idempotencyKeyWords = []string{"idempot", "dedup"}
)

// ---------------------------------------------------------------------------
// Words of deferrable-unique.
// ---------------------------------------------------------------------------

var (
	// orderingWords end the name of a numeric key part that places a row
	// among its siblings: a deferrable constraint over it and scope only is
	// an ordering constraint, not a gate.
	orderingWords = []string{"position", "pos", "rank", "ranking", "order", "ordering", "ordinal", "sort", "index",
		"idx", "seq", "sequence", "priority", "weight", "place"}

	// numericTypes are the types such a part has, after resolving a domain.
	numericTypes = []string{"smallint", "integer", "bigint", "int", "int2", "int4", "int8", "numeric", "decimal",
		"real", "double precision", "float4", "float8"}
)

// ---------------------------------------------------------------------------
// Words of unique-dropped.
//
// A drop whose migration is named for removing a unique index or constraint
// is declared deliberate (info). Structure decides first: a replacement in
// the same migration, a key column let be NULL there, a later plain index
// over the same key. "idemcheck rules unique-dropped" prints these lists.
// ---------------------------------------------------------------------------

var (
	// removalWords and uniquenessWords: a migration name with one of each
	// says it removes uniqueness on purpose.
	removalWords    = []string{"drop", "remove", "delete", "rm"}
	uniquenessWords = []string{"unique", "uniqueness", "uniq", "constraint", "constraints", "index", "indexes",
		"indices", "idx", "pkey"}

	// genericMigrationNames are file names that say nothing about the
	// migration; its folder is named for it instead.
	genericMigrationNames = []string{"migration", "up", "down", "change"}
)
