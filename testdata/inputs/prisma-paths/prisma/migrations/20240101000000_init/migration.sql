CREATE TABLE "Account" (
    "id" SERIAL NOT NULL,
    "orgId" INTEGER,
    "email" TEXT NOT NULL,
    CONSTRAINT "Account_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "Account_orgId_email_key" ON "Account"("orgId", "email");
