-- CreateTable
CREATE TABLE "Room" (
    "id" TEXT NOT NULL,
    CONSTRAINT "Room_pkey" PRIMARY KEY ("id")
);
