/** The api's environment: the database pools' sizes (docs/decisions/0017). */
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.ts";

describe("loadConfig: database pools", () => {
  it("sizes the main pool at 10 and the hot-read pool at 5 by default", () => {
    const config = loadConfig({});
    expect([config.databasePoolSize, config.databaseReadPoolSize]).toEqual([10, 5]);
  });

  it("takes DATABASE_POOL_SIZE and DATABASE_READ_POOL_SIZE", () => {
    const config = loadConfig({ DATABASE_POOL_SIZE: "20", DATABASE_READ_POOL_SIZE: "8" });
    expect([config.databasePoolSize, config.databaseReadPoolSize]).toEqual([20, 8]);
  });

  it("refuses a read pool of no connection or a fractional size, naming the variable", () => {
    for (const size of ["0", "2.5", "201", "many"]) {
      expect(() => loadConfig({ DATABASE_READ_POOL_SIZE: size })).toThrow(ConfigError);
      expect(() => loadConfig({ DATABASE_READ_POOL_SIZE: size })).toThrow(/DATABASE_READ_POOL_SIZE/);
    }
  });
});
