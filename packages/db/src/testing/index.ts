export { type TestDatabase, useTestDatabase } from "./test-database.ts";
export { freePort } from "../embedded-postgres.ts";
