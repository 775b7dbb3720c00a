/**
 * What the two snapshot benchmarks share: the rows of
 * the 20,000-row snapshot and the PostgreSQL floor it is compared with.
 *
 * - `apps/worker/bench/apply-snapshot.bench.ts`: the worker's apply alone;
 * - `apps/api/bench/snapshot-sync.ts`: submit to `completed`, through the
 *   api and the worker.
 *
 * Two row shapes are measured (docs/benchmarks.md):
 * - `lean`: identity, balance and currency only (~2.0 MiB per 20,000 rows);
 * - `full`: the same rows as an accounting export sends them, with the
 *   debtor's name, e-mail and phone (~3.6 MiB, the size the figures
 *   refer to).
 */
import pg from "pg";

export type BenchRowShape = "lean" | "full";

export const SNAPSHOT_BENCH_ROWS = 20_000;

const account = (i: number): string => `acc-${String(i).padStart(6, "0")}`;

/** The contact fields of account `i` (the same in the seed and in the measured snapshot). */
const contact = (i: number) => ({
  firstname: ["Camille", "Louis", "Léa", "Hugo", "Chloé"][i % 5] ?? "Camille",
  lastname: `Martin-${String(i).padStart(6, "0")}`,
  email: `client.${String(i).padStart(6, "0")}@exemple-compta.fr`,
  phone: `+336${String(10_000_000 + i).slice(-8)}`,
});

/** The campaign before the measured snapshot: accounts 0-19,999 with a balance of 300.00. */
export const benchSeedRows = (shape: BenchRowShape): Array<Record<string, unknown>> =>
  Array.from({ length: SNAPSHOT_BENCH_ROWS }, (_, i) => ({
    internal_id: account(i),
    remaining_amount: 300,
    currency: "EUR",
    ...(shape === "full" ? contact(i) : {}),
  }));

/**
 * The measured snapshot. Rows 0-17,999 match seeded debts: 16,000 (80% of
 * the rows) with a new balance, 2,000 restated; one row in nine of those
 * (2,000, 10%) carries a plan with one paid installment. Rows 18,000-19,999
 * are new debts (10%); seeded debts 18,000-19,999 are omitted (10%) and
 * settled.
 */
export const benchSnapshotRows = (shape: BenchRowShape): Array<Record<string, unknown>> =>
  Array.from({ length: SNAPSHOT_BENCH_ROWS }, (_, i) => {
    if (i >= 18_000) {
      return {
        internal_id: `new-${i}`,
        remaining_amount: 42.5,
        currency: "EUR",
        ...(shape === "full" ? contact(i) : { firstname: "New" }),
      };
    }
    const remaining = i < 16_000 ? 100 + (i % 97) : 300;
    const row: Record<string, unknown> = {
      internal_id: account(i),
      remaining_amount: remaining,
      currency: "EUR",
      ...(shape === "full" ? contact(i) : {}),
    };
    if (i % 9 === 0) {
      row["payment_plan"] = {
        external_reference: `plan-${i}`,
        status: "active",
        installments: [
          {
            external_reference: "a",
            amount: 10,
            payment_date: "2030-05-01",
            status: "paid",
            paid_at: "2030-05-01T10:00:00+02:00",
            external_payment_id: `pay-${i}`,
          },
          { external_reference: "b", amount: remaining, payment_date: "2030-07-01", status: "pending" },
        ],
      };
    }
    return row;
  });

/** COPY text format: a field with its backslashes, tabs and line breaks escaped, `\N` for null. */
const copyField = (value: unknown): string => {
  if (value === null || value === undefined) return "\\N";
  const text = typeof value === "object" ? JSON.stringify(value) : String(value);
  return text.replace(/[\\\t\n\r]/g, (c) => ({ "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" })[c] ?? c);
};

/** COPY ... FROM STDIN through node-postgres's submittable interface (no extra dependency). */
const copyIn = (client: pg.PoolClient, statement: string, data: string): Promise<void> =>
  new Promise((resolve, reject) => {
    let failed: Error | undefined;
    const submittable = {
      submit: (connection: { query: (text: string) => void }) => connection.query(statement),
      handleCopyInResponse: (connection: { sendCopyFromChunk: (chunk: Buffer) => void; endCopyFrom: () => void }) => {
        connection.sendCopyFromChunk(Buffer.from(data));
        connection.endCopyFrom();
      },
      handleCommandComplete: () => {},
      handleReadyForQuery: () => (failed === undefined ? resolve() : reject(failed)),
      handleError: (error: Error) => {
        failed = error;
      },
    };
    void client.query(submittable as unknown as string);
  });

/**
 * The raw PostgreSQL floor, in milliseconds: the same rows, every
 * field of them, written by COPY into a temporary table plus one
 * `INSERT ... SELECT ... ON CONFLICT` merge into a table already holding
 * their keys, in one transaction. Each key of the rows is a column
 * (`remaining_amount` numeric, `payment_plan` jsonb, the rest text). The
 * COPY text is built before the clock starts.
 */
export const measurePostgresFloor = async (
  connectionString: string,
  rows: ReadonlyArray<Record<string, unknown>>,
): Promise<number> => {
  const keys = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const columnType = (key: string) =>
    key === "remaining_amount" ? "numeric" : key === "payment_plan" ? "jsonb" : "text";
  const columns = keys.map((key) => `${key} ${columnType(key)}`).join(", ");
  const table = `bench_floor_${process.pid}_${Date.now()}`;
  const pool = new pg.Pool({ connectionString, max: 1 });
  const client = await pool.connect();
  try {
    await client.query(`create table ${table} (${columns}, primary key (internal_id))`);
    await client.query(`insert into ${table} (internal_id) select unnest($1::text[])`, [
      rows.map((row) => String(row["internal_id"])),
    ]);
    await client.query(`vacuum analyze ${table}`);
    const data = rows.map((row) => `${keys.map((key) => copyField(row[key])).join("\t")}\n`).join("");
    const assignments = keys
      .filter((key) => key !== "internal_id")
      .map((key) => `${key} = excluded.${key}`)
      .join(", ");
    const started = performance.now();
    await client.query("begin");
    await client.query(`create temporary table floor_rows (${columns}) on commit drop`);
    await copyIn(client, `copy floor_rows (${keys.join(", ")}) from stdin`, data);
    await client.query(`insert into ${table} (${keys.join(", ")}) select ${keys.join(", ")} from floor_rows
      on conflict (internal_id) do update set ${assignments}`);
    await client.query("commit");
    const elapsed = performance.now() - started;
    await client.query(`drop table ${table}`);
    return elapsed;
  } finally {
    client.release();
    await pool.end();
  }
};
