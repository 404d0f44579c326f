-- The near miss of optional-unique/prisma_idempotency_key.sql: one more
-- nullable part, a project. A run without a project but with an
-- idempotency key still has its key, so two of them are duplicates: a hole,
-- at warning (the nullable key's own name and the generated index name,
-- cut by the server at 63 bytes, say nothing about the table).
CREATE TABLE "Project" ("id" TEXT NOT NULL, CONSTRAINT "Project_pkey" PRIMARY KEY ("id"));
CREATE TABLE "RuntimeEnvironment" ("id" TEXT NOT NULL, CONSTRAINT "RuntimeEnvironment_pkey" PRIMARY KEY ("id"));
CREATE TABLE "TaskRun" (
    "id" TEXT NOT NULL,
    "projectId" TEXT,
    "runtimeEnvironmentId" TEXT NOT NULL,
    "taskIdentifier" TEXT NOT NULL,
    "idempotencyKey" TEXT,
    CONSTRAINT "TaskRun_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "TaskRun_projectId_runtimeEnvironmentId_taskIdentifier_idempotencyKey_key" ON "TaskRun"("projectId", "runtimeEnvironmentId", "taskIdentifier", "idempotencyKey"); -- want: nullable-key/warning "projectId may be NULL, so two rows with the same runtimeEnvironmentId, taskIdentifier and idempotencyKey and no projectId are both accepted$" optional-unique/info "idempotencyKey may be NULL, so rows without idempotencyKey are not deduplicated within projectId, runtimeEnvironmentId and taskIdentifier"
ALTER TABLE "TaskRun" ADD CONSTRAINT "TaskRun_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "TaskRun" ADD CONSTRAINT "TaskRun_runtimeEnvironmentId_fkey" FOREIGN KEY ("runtimeEnvironmentId") REFERENCES "RuntimeEnvironment"("id") ON DELETE CASCADE ON UPDATE CASCADE;
