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

/**
 * The PostgreSQL floor of a staged snapshot of balance changes, in
 * milliseconds: the writes such a snapshot cannot do without, on the real
 * schema (its indexes, triggers and foreign keys), as set-based SQL in one
 * transaction on one connection. The rows (`internal_id`, `remaining_amount`
 * in major units of a two-decimal currency, as the bench's EUR rows are) are copied into a temporary table, then one statement sets
 * every differing balance of the campaign's debts found by identity and
 * records the difference as a payment of the campaign's latest snapshot
 * (its integration client, `balance_delta`, as the apply records it), then
 * the transaction commits. Nothing is read, validated or planned outside
 * PostgreSQL, and nothing the apply adds to these writes (events,
 * enrollments, followups led to payments) is done. The COPY text is built
 * before the clock starts.
 */
export const measureBalanceChangeFloor = async (
  connectionString: string,
  campaignReference: string,
  rows: ReadonlyArray<{ readonly internal_id: string; readonly remaining_amount: number }>,
): Promise<{ readonly ms: number; readonly changed: number }> => {
  const data = rows.map((row) => `${copyField(row.internal_id)}\t${copyField(row.remaining_amount)}\n`).join("");
  const pool = new pg.Pool({ connectionString, max: 1 });
  const client = await pool.connect();
  try {
    const started = performance.now();
    await client.query("begin");
    await client.query(
      "create temporary table floor_balances (internal_id text, remaining_amount numeric) on commit drop",
    );
    await copyIn(client, "copy floor_balances (internal_id, remaining_amount) from stdin", data);
    await client.query("analyze floor_balances");
    const { rowCount } = await client.query(
      `with campaign as (
        select c.company_id, c.id, s.id as snapshot_id, s.integration_client_pk
        from campaigns c
        join lateral (select id, integration_client_pk from snapshots
          where company_id = c.company_id and campaign_id = c.id order by id desc limit 1) s on true
        where c.api_reference = $1
      ), changed as (
        update debts d set balance_minor = (f.remaining_amount * 100)::int8, updated_at = now()
        from floor_balances f, campaign c
        where d.company_id = c.company_id and d.campaign_id = c.id and d.internal_id = f.internal_id
          and d.balance_minor <> (f.remaining_amount * 100)::int8
        returning d.company_id, d.id, d.currency, old.balance_minor - new.balance_minor as amount_minor,
          c.snapshot_id, c.integration_client_pk
      )
      insert into payments (company_id, debt_id, integration_client_pk, snapshot_id, provider, kind, amount_minor,
        currency, status, paid_at, created_at)
      select company_id, id, integration_client_pk, snapshot_id, 'snapshot', 'balance_delta', amount_minor, currency,
        case when amount_minor > 0 then 'succeeded' else 'adjustment' end, now(), now()
      from changed`,
      [campaignReference],
    );
    await client.query("commit");
    return { ms: performance.now() - started, changed: rowCount ?? 0 };
  } catch (error) {
    await client.query("rollback").catch(() => {});
    throw error;
  } finally {
    client.release();
    await pool.end();
  }
};
