-- A table whose name is not a plain word: the rows are "rows".
CREATE TABLE "PaymentAttempts" (
    "accountId" bigint NOT NULL,
    "attemptKey" text
);
CREATE UNIQUE INDEX attempts_key ON "PaymentAttempts" ("accountId", "attemptKey"); -- want: nullable-key "attemptKey may be NULL, so two rows with the same accountId and no attemptKey are both accepted"
