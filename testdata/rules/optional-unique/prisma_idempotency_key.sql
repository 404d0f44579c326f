-- Unique when present, as Prisma writes it: a run that supplies no
-- idempotency key is not deduplicated, by design. The index name is
-- generated from the table and its columns, so "idempotencyKey" in it says
-- nothing about the table, and the nullable part's own name is no reason
-- for error. The foreign key comes last, as in Prisma's migrations.
CREATE TYPE "RuntimeEnvironmentType" AS ENUM ('PRODUCTION', 'STAGING', 'DEVELOPMENT');
CREATE TABLE "RuntimeEnvironment" (
    "id" TEXT NOT NULL,
    "type" "RuntimeEnvironmentType" NOT NULL,
    CONSTRAINT "RuntimeEnvironment_pkey" PRIMARY KEY ("id")
);
CREATE TABLE "TaskRun" (
    "id" TEXT NOT NULL,
    "runtimeEnvironmentId" TEXT NOT NULL,
    "taskIdentifier" TEXT NOT NULL,
    "idempotencyKey" TEXT,
    "payload" TEXT NOT NULL,
    CONSTRAINT "TaskRun_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "TaskRun_runtimeEnvironmentId_taskIdentifier_idempotencyKey_key" ON "TaskRun"("runtimeEnvironmentId", "taskIdentifier", "idempotencyKey"); -- want: optional-unique/info "^\"TaskRun\"\.\"TaskRun_runtimeEnvironmentId_taskIdentifier_idempotencyKey_key\" \(runtimeEnvironmentId, taskIdentifier, idempotencyKey\): idempotencyKey may be NULL, so rows without idempotencyKey are not deduplicated within runtimeEnvironmentId and taskIdentifier; intended when a request that supplies no idempotencyKey is not meant to be deduplicated \(if every one must be, derive a fallback key from the action and its target instead of NULL\)$"
ALTER TABLE "TaskRun" ADD CONSTRAINT "TaskRun_runtimeEnvironmentId_fkey" FOREIGN KEY ("runtimeEnvironmentId") REFERENCES "RuntimeEnvironment"("id") ON DELETE CASCADE ON UPDATE CASCADE;
