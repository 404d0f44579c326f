-- CreateIndex
CREATE UNIQUE INDEX "Booking_roomId_requestKey_key" ON "Booking"("roomId", "requestKey");
