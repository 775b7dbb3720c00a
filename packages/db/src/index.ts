/** Persistence shared by the api, the worker and the CLI. */
export * from "./connection.ts";
export * from "./embedded-postgres.ts";
export * from "./migrate.ts";
export * from "./public-ids.ts";
export * from "./repository-root.ts";
export type * from "./schema.ts";
