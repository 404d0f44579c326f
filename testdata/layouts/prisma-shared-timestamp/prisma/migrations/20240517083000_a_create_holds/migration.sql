-- CreateTable
CREATE TABLE "Hold" (
    "id" TEXT NOT NULL,
    "roomId" TEXT NOT NULL,
    "idempotencyKey" TEXT,
    CONSTRAINT "Hold_pkey" PRIMARY KEY ("id")
);
