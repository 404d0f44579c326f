-- A table whose name is not a plain word: the rows are "rows".
CREATE TABLE "PaymentAttempts" (
    "accountId" bigint NOT NULL,
    "attemptKey" text
);
CREATE UNIQUE INDEX attempts_key ON "PaymentAttempts" ("accountId", "attemptKey"); -- want: optional-unique "attemptKey may be NULL, so rows without attemptKey are not deduplicated within accountId"
