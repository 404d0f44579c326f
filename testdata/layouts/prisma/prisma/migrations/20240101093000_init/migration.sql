-- CreateTable
CREATE TABLE "Booking" (
    "id" TEXT NOT NULL,
    "roomId" TEXT NOT NULL,
    "requestKey" TEXT,

    CONSTRAINT "Booking_pkey" PRIMARY KEY ("id")
);
