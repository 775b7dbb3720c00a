/**
 * The tenant-statement check that ends every test run (packages/testing/tenant-statements.ts,
 * docs/decisions/0023): what it counts as a statement of the code under test,
 * and which plans it refuses.
 */
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { checkTenantStatements, statementOrigin, unexcused } from "../tenant-statements.ts";
import { useTestDatabase } from "../index.ts";

const { url } = await useTestDatabase();
const client = new pg.Client({ connectionString: url });
await client.connect();
afterAll(async () => {
  await client.end();
});

const verdictsOf = async (statement: string) => checkTenantStatements(client, [statement]);

describe("checkTenantStatements", () => {
  it("refuses a tenant row named by its id alone, and a join by a foreign key alone", async () => {
    expect(await verdictsOf("select status from snapshots where id = $1")).toMatchObject([
      { kind: "unscoped", scans: [{ table: "snapshots", condition: "(id = $1)" }] },
    ]);
    expect(
      await verdictsOf(
        "select d.id from webhook_deliveries d join webhook_events e on e.id = d.event_id where d.company_id = $1",
      ),
    ).toMatchObject([{ kind: "unscoped", scans: [{ table: "webhook_events" }] }]);
  });

  it("refuses a scan across companies, even one that leaves some out", async () => {
    expect(await verdictsOf("select count(*) from debts")).toMatchObject([{ kind: "unscoped" }]);
    expect(await verdictsOf("select id from webhook_events where company_id <> all ($1::int8[])")).toMatchObject([
      { kind: "unscoped" },
    ]);
  });

  it("accepts statements that name the company of every tenant table they read", async () => {
    const statements = [
      "select status from snapshots where company_id = $1 and id = $2",
      "update debts set status = 'paid' where company_id = $1 and id = any ($2::int8[])",
      "select d.id from webhook_deliveries d join webhook_events e on e.company_id = d.company_id and e.id = d.event_id where d.company_id = $1",
      "insert into creditors (company_id, name) values ($1, $2)",
      "select id from companies where id = $1",
    ];
    expect(await checkTenantStatements(client, statements)).toEqual([]);
  });

  it("reports a statement it cannot plan instead of passing it", async () => {
    expect(await verdictsOf("select nothing from debts where")).toMatchObject([{ kind: "unplanned" }]);
  });

  it("lets the documented exceptions through, and only those", async () => {
    const verdicts = [
      ...(await verdictsOf('select "id" from "debts" where "id" = $1')),
      ...(await verdictsOf('select "id" from "debts" where "id" = $1 and "status" = $2')),
    ];
    expect(verdicts).toHaveLength(2);
    expect(unexcused(verdicts).map((verdict) => verdict.statement)).toEqual([
      'select "id" from "debts" where "id" = $1 and "status" = $2',
    ]);
  });
});

describe("statementOrigin", () => {
  const stack = (...paths: ReadonlyArray<string>) =>
    ["Error", ...paths.map((path) => `    at async f (${path}:10:5)`)].join("\n");

  it("names the innermost frame of the project's own code, past node_modules and the database plumbing", () => {
    expect(
      statementOrigin(
        stack(
          "/repo/packages/testing/tenant-statements.ts",
          "/repo/node_modules/.pnpm/kysely/dist/esm/query-executor.js",
          "/repo/packages/db/src/connection.ts",
          "/repo/apps/worker/src/webhooks/deliver.ts",
          "/repo/apps/worker/test/webhooks-worker.test.ts",
        ),
      ),
    ).toBe("src");
    expect(
      statementOrigin(
        stack(
          "/repo/node_modules/.pnpm/kysely/dist/esm/query-executor.js",
          "file:///repo/apps/api/test/support/harness.ts",
        ),
      ),
    ).toBe("test");
    expect(statementOrigin(stack("/repo/packages/testing/company-digest.ts"))).toBe("test");
    expect(statementOrigin(stack("/repo/node_modules/.pnpm/graphile-worker/dist/main.js"))).toBeUndefined();
  });
});
