/** What the global set-up hands to test files through vitest's provide/inject. */
declare module "vitest" {
  interface ProvidedContext {
    /** Server URL (maintenance database) and the migrated template's name. */
    testDatabase: { serverUrl: string; template: string };
    /** The directory the tenant-statement check records statements in (tenant-statements.ts). */
    tenantStatements: string;
  }
}

export {};
