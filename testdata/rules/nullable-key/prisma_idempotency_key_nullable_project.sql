-- The near miss of optional-unique/prisma_idempotency_key.sql: one more
-- nullable part, a hash of the payload, which is a value. A run without a
-- key still has its payload hash, and one without a hash still has its
-- key, so two of either are duplicates: a hole, at warning (no part that is
-- never NULL is a request id, and the generated index name, cut by the
-- server at 63 bytes, says nothing about the table).
CREATE TABLE "RuntimeEnvironment" ("id" TEXT NOT NULL, CONSTRAINT "RuntimeEnvironment_pkey" PRIMARY KEY ("id"));
CREATE TABLE "TaskRun" (
    "id" TEXT NOT NULL,
    "runtimeEnvironmentId" TEXT NOT NULL,
    "taskIdentifier" TEXT NOT NULL,
    "idempotencyKey" TEXT,
    "payloadHash" TEXT,
    CONSTRAINT "TaskRun_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "TaskRun_runtimeEnvironmentId_taskIdentifier_idempotencyKey_payloadHash_key" ON "TaskRun"("runtimeEnvironmentId", "taskIdentifier", "idempotencyKey", "payloadHash"); -- want: nullable-key/warning "idempotencyKey and payloadHash may be NULL, so two rows with the same runtimeEnvironmentId and taskIdentifier and no idempotencyKey \(or no payloadHash\) are both accepted$"
ALTER TABLE "TaskRun" ADD CONSTRAINT "TaskRun_runtimeEnvironmentId_fkey" FOREIGN KEY ("runtimeEnvironmentId") REFERENCES "RuntimeEnvironment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Re-judged (issue 25): a nullable project beside the optional key. It read
-- as unique when present through both ("the run's own optional key within
-- its environment"), but the project is a reference, never the row's own
-- optional value: a run without a project that keeps its environment and
-- key is a duplicate. The key alone is unique when present, and the first
-- fix leaves runs without a key alone.
CREATE TABLE "Project" ("id" TEXT NOT NULL, CONSTRAINT "Project_pkey" PRIMARY KEY ("id"));
CREATE TABLE "BatchRun" (
    "id" TEXT NOT NULL,
    "projectId" TEXT,
    "runtimeEnvironmentId" TEXT NOT NULL,
    "idempotencyKey" TEXT,
    CONSTRAINT "BatchRun_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "BatchRun_projectId_runtimeEnvironmentId_idempotencyKey_key" ON "BatchRun"("projectId", "runtimeEnvironmentId", "idempotencyKey"); -- want: nullable-key/warning "projectId may be NULL, so two rows with the same runtimeEnvironmentId and idempotencyKey and no projectId are both accepted; if every row has a projectId" fix "^add a NULLS NOT DISTINCT unique index for rows where idempotencyKey is present" optional-unique/info "idempotencyKey may be NULL, so rows without idempotencyKey are not deduplicated within projectId and runtimeEnvironmentId"
ALTER TABLE "BatchRun" ADD CONSTRAINT "BatchRun_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "BatchRun" ADD CONSTRAINT "BatchRun_runtimeEnvironmentId_fkey" FOREIGN KEY ("runtimeEnvironmentId") REFERENCES "RuntimeEnvironment"("id") ON DELETE CASCADE ON UPDATE CASCADE;
