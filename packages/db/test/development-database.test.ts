/**
 * The development database of `npm start`, the CLI and the apps started
 * without `DATABASE_URL`: this checkout's cluster is started or found again,
 * and another server on its port is refused rather than written to.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, resolveDevelopmentDatabase } from "../src/embedded-postgres.ts";

const dataDir = mkdtempSync(join(tmpdir(), "dc-dev-database-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const listen = (port: number): Promise<Server> =>
  new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy());
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });

describe("resolveDevelopmentDatabase", () => {
  it("uses DATABASE_URL as given", async () => {
    const handle = await resolveDevelopmentDatabase(
      { DATABASE_URL: "postgres://u:p@db.example:5432/app" },
      { dataDir },
    );
    expect(handle).toMatchObject({ url: "postgres://u:p@db.example:5432/app", owned: false });
  });

  it("reads a blank DATABASE_URL or EMBEDDED_PG_PORT as unset, and refuses a port that is not one", async () => {
    const blank = await resolveDevelopmentDatabase({ DATABASE_URL: " ", EMBEDDED_PG_PORT: "x" }, { dataDir }).catch(
      (error: unknown) => error,
    );
    expect(String(blank)).toContain('EMBEDDED_PG_PORT must be a port from 1 to 65535, not "x"');
    expect(existsSync(join(dataDir, "PG_VERSION"))).toBe(false);
  });

  it("refuses a port another server holds, starting nothing", async () => {
    const port = await freePort();
    const other = await listen(port);
    try {
      await expect(resolveDevelopmentDatabase({ EMBEDDED_PG_PORT: String(port) }, { dataDir })).rejects.toThrow(
        `port ${port} is taken by another server, not this checkout's database (${dataDir}): ` +
          "set EMBEDDED_PG_PORT to a free port, or DATABASE_URL to use that server on purpose",
      );
      expect(existsSync(join(dataDir, "PG_VERSION"))).toBe(false);
    } finally {
      other.close();
    }
  });

  it("refuses another server on the port a stale postmaster.pid names (a cluster that did not stop cleanly)", async () => {
    // What a cluster killed with SIGKILL, or a machine that lost power, leaves behind: the port of the
    // last run, now held by another checkout's cluster or a system PostgreSQL that started since.
    const staleDir = mkdtempSync(join(tmpdir(), "dc-dev-database-stale-"));
    const port = await freePort();
    const other = await listen(port);
    try {
      writeFileSync(join(staleDir, "postmaster.pid"), `999999\n${staleDir}\n1700000000\n${port}\n/tmp\n127.0.0.1\n`);
      await expect(resolveDevelopmentDatabase({ EMBEDDED_PG_PORT: String(port) }, { dataDir: staleDir })).rejects.toThrow(
        `port ${port} is taken by another server, not this checkout's database (${staleDir})`,
      );
    } finally {
      other.close();
      rmSync(staleDir, { recursive: true, force: true });
    }
  });

  it("starts this checkout's cluster, and finds it again by its postmaster.pid on whatever port", async () => {
    const port = await freePort();
    const owner = await resolveDevelopmentDatabase({ EMBEDDED_PG_PORT: String(port) }, { dataDir });
    try {
      expect(owner).toMatchObject({ owned: true });
      expect(owner.url).toContain(`:${port}/`);
      const again = await resolveDevelopmentDatabase({ EMBEDDED_PG_PORT: String(await freePort()) }, { dataDir });
      expect(again).toMatchObject({ url: owner.url, owned: false });
    } finally {
      await owner.stop();
    }
  });
});
