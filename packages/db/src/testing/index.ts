export { type TestDatabase, useTestDatabase } from "./test-database.ts";
