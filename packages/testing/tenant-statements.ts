/**
 * The tenant-statement check (DESIGN.md 6, docs/decisions/0023): every
 * statement the code under test (a `src/` file, not a test or fixture) sends
 * while the tests run is recorded, and at the end of the run each one that
 * names a tenant table is planned by PostgreSQL: a scan of a tenant table
 * that does not name its company (`company_id` in its index condition or
 * its filter) fails the run, unless the statement is one of the documented
 * exceptions (`tenantStatementExceptions`).
 *
 * Test-only: a vitest set-up file (`record-tenant-statements.ts`) records,
 * the global set-up checks (`global-setup.ts`). Nothing here runs in the
 * apps. Statements run inside PostgreSQL (triggers, functions) are not seen:
 * they are written in the migrations and reviewed there.
 */
import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { tableClasses } from "@dc/db";
import { tenantStatementExceptions } from "./tenant-statement-exceptions.ts";

const tenantTables: ReadonlySet<string> = new Set(
  Object.entries(tableClasses)
    .filter(([, tableClass]) => tableClass === "tenant")
    .map(([table]) => table),
);
const namesTenantTable = new RegExp(`\\b(${[...tenantTables].join("|")})\\b`);
const isQuery = /^\s*(with|select|insert|update|delete|merge)\b/i;

/** One statement text, whitespace collapsed. */
export const normaliseStatement = (text: string): string => text.replace(/\s+/g, " ").trim();

/** Files between the code under test and node-postgres: never a statement's origin. */
const PLUMBING =
  /\/packages\/db\/src\/(connection|prepared-statements|statement-queue)\.ts|\/packages\/testing\/(statement-faults|tenant-statements|record-tenant-statements)\.ts/;

/**
 * Where a statement comes from, by the innermost frame of the call stack
 * (async frames included) that is the project's own code: `src` for the
 * code under test, `test` for a test or a fixture (test folders and
 * `packages/testing`), undefined when no frame says (graphile-worker's own).
 */
export const statementOrigin = (stack: string): "src" | "test" | undefined => {
  for (const line of stack.split("\n").slice(1)) {
    const path = /\(?(?:file:\/\/)?(\/[^()\s]+?):\d+:\d+\)?$/.exec(line.trim())?.[1];
    if (path === undefined || path.includes("/node_modules/") || PLUMBING.test(path)) continue;
    if (/\/test\//.test(path) || /\/packages\/testing\//.test(path)) return "test";
    if (/\/(apps|packages)\/[^/]+\/src\//.test(path)) return "src";
  }
  return undefined;
};

const stackHere = (): string => {
  const holder: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 100;
  Error.captureStackTrace(holder);
  Error.stackTraceLimit = limit;
  return holder.stack ?? "";
};

type Query = (this: pg.Client, ...args: unknown[]) => unknown;

/** Marks the recording `query`, so that a process installs it once. */
const recorder = Symbol.for("dc.tenant-statement-recorder");

/**
 * Records the text of every statement the code under test sends that names
 * a tenant table, once per text, in a file of `directory` of its own. Call
 * before any connection is opened (a pool connection captures `query` when
 * it connects).
 */
export const recordTenantStatements = (directory: string): void => {
  const original = pg.Client.prototype.query as unknown as Query & { [recorder]?: true };
  // A worker that runs several files without isolation runs this set-up once per file: one recorder is enough.
  if (original[recorder] === true) return;
  const file = join(directory, `${process.pid}-${Math.random().toString(36).slice(2)}.jsonl`);
  const recorded = new Set<string>();
  const query = function query(this: pg.Client, ...args: unknown[]) {
    const first = args[0];
    const text = typeof first === "string" ? first : (first as { text?: unknown } | null)?.text;
    if (typeof text === "string" && !recorded.has(text) && isQuery.test(text) && namesTenantTable.test(text)) {
      if (statementOrigin(stackHere()) === "src") {
        recorded.add(text);
        appendFileSync(file, `${JSON.stringify(text)}\n`);
      }
    }
    return original.apply(this, args);
  };
  (pg.Client.prototype as unknown as { query: Query }).query = Object.assign(query, { [recorder]: true as const });
};

/** The distinct statements recorded in `directory` (distinct once their whitespace is collapsed), as sent. */
export const recordedTenantStatements = (directory: string): Array<string> => {
  const statements = new Map<string, string>();
  for (const name of readdirSync(directory)) {
    if (!name.endsWith(".jsonl")) continue;
    for (const line of readFileSync(join(directory, name), "utf8").split("\n")) {
      if (line === "") continue;
      const text = JSON.parse(line) as string;
      statements.set(normaliseStatement(text), text);
    }
  }
  return [...statements.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, text]) => text);
};

/** A scan of a tenant table that does not name the company. */
export interface UnscopedScan {
  readonly table: string;
  readonly node: string;
  readonly condition: string | undefined;
}

interface PlanNode {
  readonly "Node Type": string;
  readonly "Relation Name"?: string;
  readonly "Index Cond"?: string;
  readonly "Recheck Cond"?: string;
  readonly Filter?: string;
  readonly Plans?: ReadonlyArray<PlanNode>;
}

/** An equality on `company_id` (`<> all (...)` names companies to leave out, not one to read). */
const namesCompany = /\bcompany_id = |= (\w+\.)?company_id\b/;

const unscopedScans = (node: PlanNode, found: Array<UnscopedScan>): Array<UnscopedScan> => {
  const table = node["Relation Name"];
  if (table !== undefined && tenantTables.has(table) && node["Node Type"].includes("Scan")) {
    const conditions = [node["Index Cond"], node["Recheck Cond"], node.Filter].filter((c) => c !== undefined);
    if (!conditions.some((condition) => namesCompany.test(condition))) {
      found.push({ table, node: node["Node Type"], condition: conditions.join(" / ") || undefined });
    }
  }
  for (const child of node.Plans ?? []) unscopedScans(child, found);
  return found;
};

/** What the check says of one statement (whitespace collapsed). */
export type StatementVerdict =
  | { readonly statement: string; readonly kind: "unscoped"; readonly scans: ReadonlyArray<UnscopedScan> }
  | { readonly statement: string; readonly kind: "unplanned"; readonly error: string };

/**
 * Plans each statement with `client` (a database with the migrated schema)
 * as PostgreSQL's generic plan, with sequential scans, hash and merge joins
 * disabled so that every table a statement can reach by an index is reached
 * by one and its conditions are visible on the scan; returns the statements
 * with a scan of a tenant table that does not name `company_id`, and those
 * that could not be planned. Nothing is executed (EXPLAIN without ANALYZE,
 * in a transaction rolled back).
 */
export const checkTenantStatements = async (
  client: pg.Client,
  statements: ReadonlyArray<string>,
): Promise<Array<StatementVerdict>> => {
  const verdicts: Array<StatementVerdict> = [];
  for (const text of statements) {
    // Planned as sent (a `--` comment ends at its line), reported with its whitespace collapsed.
    const statement = normaliseStatement(text);
    await client.query("begin");
    try {
      await client.query(
        "set local enable_seqscan = off; set local enable_hashjoin = off; set local enable_mergejoin = off; " +
          "set local enable_bitmapscan = off; set local enable_material = off",
      );
      const { rows } = await client.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(
        `explain (generic_plan, format json) ${text}`,
      );
      const plan = rows[0]?.["QUERY PLAN"][0]?.Plan;
      const scans = plan === undefined ? [] : unscopedScans(plan, []);
      if (scans.length > 0) verdicts.push({ statement, kind: "unscoped", scans });
    } catch (error) {
      verdicts.push({ statement, kind: "unplanned", error: (error as Error).message });
    } finally {
      await client.query("rollback");
    }
  }
  return verdicts;
};

/** The verdicts no documented exception covers. */
export const unexcused = (verdicts: ReadonlyArray<StatementVerdict>): Array<StatementVerdict> =>
  verdicts.filter((verdict) => !tenantStatementExceptions.some(({ pattern }) => pattern.test(verdict.statement)));

/** A report of the verdicts, for the run's output. */
export const describeVerdicts = (verdicts: ReadonlyArray<StatementVerdict>): string =>
  verdicts
    .map((verdict) =>
      verdict.kind === "unplanned"
        ? `- could not be planned (${verdict.error}):\n    ${verdict.statement}`
        : `- ${verdict.scans.map((scan) => `${scan.table} by ${scan.condition ?? "nothing"} (${scan.node})`).join("; ")}:\n    ${verdict.statement}`,
    )
    .join("\n");
