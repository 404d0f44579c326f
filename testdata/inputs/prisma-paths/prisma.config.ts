import { defineConfig } from "prisma/config";

// The migrations moved to db/migrations in the config, but the folder on
// disk is still prisma/migrations: Prisma would find none there.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: {
    path: "db/migrations",
  },
});
