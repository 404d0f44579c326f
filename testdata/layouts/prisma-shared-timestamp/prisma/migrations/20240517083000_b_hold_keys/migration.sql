-- Same timestamp as the folder before it: Prisma applies both, in folder-name order.
-- CreateIndex
CREATE UNIQUE INDEX "Hold_roomId_idempotencyKey_key" ON "Hold"("roomId", "idempotencyKey");
