-- An owner key inside a partial index whose predicate reads enum columns,
-- written as pg_dump prints it: an IN list as "= ANY (ARRAY[...])" of
-- labels cast to the schema-qualified enum, and a required enum whose
-- default is such a cast. The rows of the hole must be inside the
-- predicate: the witness gives the nullable state one of the listed labels
-- and leaves the channel to its default, which must be read as the label
-- it is (an unread default made the predicate unknown, the state stayed
-- NULL, and the rows fell outside the index).
CREATE TYPE public.settlement_state AS ENUM ('queued', 'running', 'settled', 'voided');
CREATE TYPE public.settlement_channel AS ENUM ('card', 'wire');
CREATE TABLE public.settlements (
    id bigserial PRIMARY KEY,
    subject_type character varying DEFAULT 'Order'::character varying NOT NULL,
    subject_id bigint,
    state public.settlement_state,
    channel public.settlement_channel DEFAULT 'card'::public.settlement_channel NOT NULL,
    amount_cents bigint NOT NULL
);
CREATE UNIQUE INDEX index_settlements_on_subject_id_and_subject_type ON public.settlements USING btree (subject_id, subject_type) WHERE ((state = ANY (ARRAY['queued'::public.settlement_state, 'running'::public.settlement_state])) AND (channel = 'card'::public.settlement_channel)); -- want: nullable-key/warning "subject_id may be NULL, so among rows where \(state IN \('queued', 'running'\)\) AND \(channel = 'card'\), two settlements with the same subject_type and no subject_id are both accepted" fix "^make subject_id NOT NULL$"
