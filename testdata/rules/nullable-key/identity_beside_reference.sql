-- Issue 25, shape 3: an identity NOT NULL beside a nullable reference,
-- upserted on both. The reference is never the row's own optional value:
-- rows without a lesson keep their identifier, so two of them are
-- duplicates. NULL may mean "not tied to one lesson", so NULLS NOT
-- DISTINCT comes first, NOT NULL last.
CREATE TABLE lessons (id bigint PRIMARY KEY);
CREATE TABLE progress_events (
    id bigserial PRIMARY KEY,
    identifier text NOT NULL,
    lesson_id bigint REFERENCES lessons (id),
    payload jsonb
);
CREATE UNIQUE INDEX index_progress_events_on_identifier_and_lesson_id ON progress_events (identifier, lesson_id); -- want: nullable-key/warning "^progress_events\.index_progress_events_on_identifier_and_lesson_id \(identifier, lesson_id\): lesson_id may be NULL, so two progress_events with the same identifier and no lesson_id are both accepted; if every progress_event has a lesson_id, declare it NOT NULL: SELECT count\(\*\) FROM progress_events WHERE lesson_id IS NULL must be 0$" fix "^rebuild index_progress_events_on_identifier_and_lesson_id NULLS NOT DISTINCT"

-- Near miss: the row's own optional name under a NOT NULL lesson is unique
-- when present.
CREATE TABLE lesson_notes (
    id bigserial PRIMARY KEY,
    lesson_id bigint NOT NULL REFERENCES lessons (id),
    title text
);
CREATE UNIQUE INDEX index_lesson_notes_on_lesson_id_and_title ON lesson_notes (lesson_id, title); -- want: optional-unique/info "title may be NULL, so lesson_notes without title are not deduplicated within lesson_id"
