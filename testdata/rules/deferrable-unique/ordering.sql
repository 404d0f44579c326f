-- Issue 25: ordering constraints. A position, rank or sort order unique
-- among a row's siblings is made deferrable so that one transaction can
-- move rows past each other (swap two cards, shift a list); it gates no
-- request, and is not reported. Prisma migrations write these by hand.
CREATE TABLE "Board" ("id" TEXT NOT NULL, CONSTRAINT "Board_pkey" PRIMARY KEY ("id"));
CREATE TABLE "Card" (
    "id" TEXT NOT NULL,
    "boardId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    CONSTRAINT "Card_pkey" PRIMARY KEY ("id")
);
ALTER TABLE "Card" ADD CONSTRAINT "Card_boardId_fkey" FOREIGN KEY ("boardId") REFERENCES "Board"("id");
ALTER TABLE "Card" ADD CONSTRAINT "Card_boardId_position_key" UNIQUE ("boardId", "position") DEFERRABLE INITIALLY DEFERRED;

CREATE TABLE playlists (id bigint PRIMARY KEY);
CREATE TABLE playlist_items (
    id bigserial PRIMARY KEY,
    playlist_id bigint NOT NULL REFERENCES playlists (id),
    sort_order numeric NOT NULL,
    CONSTRAINT playlist_items_order UNIQUE (playlist_id, sort_order) DEFERRABLE
);

-- Near miss: a position that is text is no number; reported.
CREATE TABLE lanes (
    id bigserial PRIMARY KEY,
    playlist_id bigint NOT NULL REFERENCES playlists (id),
    rank text NOT NULL,
    CONSTRAINT lanes_rank UNIQUE (playlist_id, rank) DEFERRABLE -- want: deferrable-unique/warning "lanes_rank"
);

-- Near miss: a position beside another value of the row's own is a key,
-- not an order; reported.
CREATE TABLE slots (
    id bigserial PRIMARY KEY,
    playlist_id bigint NOT NULL REFERENCES playlists (id),
    label text NOT NULL,
    position integer NOT NULL,
    CONSTRAINT slots_label_position UNIQUE (playlist_id, label, position) DEFERRABLE -- want: deferrable-unique/warning "slots_label_position"
);

-- Near miss: in a claim table a deferrable key is reported whatever its
-- parts are.
CREATE TABLE claim_queue (
    id bigserial PRIMARY KEY,
    playlist_id bigint NOT NULL REFERENCES playlists (id),
    position integer NOT NULL,
    CONSTRAINT claim_queue_position UNIQUE (playlist_id, position) DEFERRABLE -- want: deferrable-unique/warning "claim_queue_position"
);
