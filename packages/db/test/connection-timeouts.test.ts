/**
 * The bounds a pool may ask of its connections (`statementTimeoutMs`,
 * `idleInTransactionTimeoutMs`), set at connection start beside the settings
 * `DATABASE_URL` already carries and beside generic plans.
 */
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createDatabase } from "../src/connection.ts";
import { useTestDatabase } from "../../testing/index.ts";

const { url } = await useTestDatabase();
const withTimezone = new URL(url);
withTimezone.searchParams.set("options", "-c TimeZone=Asia/Tokyo");
const bounded = createDatabase({
  connectionString: withTimezone.toString(),
  max: 1,
  genericPlans: true,
  statementTimeoutMs: 300,
  idleInTransactionTimeoutMs: 400,
});
const unbounded = createDatabase({ connectionString: url, max: 1 });
afterAll(() => Promise.all([bounded.destroy(), unbounded.destroy()]));

const setting = async (db: typeof bounded, name: string) =>
  (await sql<{ value: string }>`select current_setting(${name}) as value`.execute(db)).rows[0]!.value;

describe("connection bounds", () => {
  it("start each connection with the timeouts, keeping the URL's settings and generic plans", async () => {
    expect(await setting(bounded, "statement_timeout")).toBe("300ms");
    expect(await setting(bounded, "idle_in_transaction_session_timeout")).toBe("400ms");
    expect(await setting(bounded, "TimeZone")).toBe("Asia/Tokyo");
    expect(await setting(bounded, "plan_cache_mode")).toBe("force_generic_plan");
    expect(await setting(unbounded, "statement_timeout")).toBe("0");
  });

  it("cancel a statement that runs past the statement timeout with 57014", async () => {
    await expect(sql`select pg_sleep(2)`.execute(bounded)).rejects.toMatchObject({ code: "57014" });
    await expect(sql`select pg_sleep(0.5)`.execute(unbounded)).resolves.toBeDefined();
    // The connection serves the next statement.
    expect(await setting(bounded, "statement_timeout")).toBe("300ms");
  });

  it("end a session left idle in a transaction, releasing its locks", async () => {
    await sql`create table idle_probe (id int primary key)`.execute(unbounded);
    await sql`insert into idle_probe values (1)`.execute(unbounded);
    const leaked = bounded.transaction().execute(async (trx) => {
      await sql`select * from idle_probe where id = 1 for update`.execute(trx);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await sql`select 1`.execute(trx);
    });
    await expect(leaked).rejects.toThrow();
    // The lock is gone: another session takes it at once.
    await unbounded.transaction().execute(async (trx) => {
      await sql`set local lock_timeout = '200ms'`.execute(trx);
      await sql`select * from idle_probe where id = 1 for update`.execute(trx);
    });
    // The pool replaced the ended session.
    expect(await setting(bounded, "idle_in_transaction_session_timeout")).toBe("400ms");
  });
});
