/** Transactions run again after a deadlock or a serialization failure, and what escapes is a 503. */
import { useTestDatabase } from "@dc/testing";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { classifyUnexpected } from "../src/http/api-error.ts";
import { retriedTransaction } from "../src/http/retried-transaction.ts";

const { db } = await useTestDatabase();

const conflict = (code: string) => Object.assign(new Error(`pg ${code}`), { code, severity: "ERROR" });

describe("retriedTransaction", () => {
  it("runs the work again after a deadlock or a serialization failure, and keeps only the attempt that committed", async () => {
    // A plain table: the attempts may run on any connection of the pool.
    await sql`create table retried_writes (attempt int)`.execute(db);
    let attempts = 0;
    const result = await retriedTransaction(db, async (trx) => {
      attempts += 1;
      await sql`insert into retried_writes values (${attempts})`.execute(trx);
      if (attempts === 1) throw conflict("40P01");
      if (attempts === 2) throw conflict("40001");
      return "done";
    });
    expect(result).toBe("done");
    expect(attempts).toBe(3);
    const { rows } = await sql<{ attempt: number }>`select attempt from retried_writes`.execute(db);
    expect(rows).toEqual([{ attempt: 3 }]);
    await sql`drop table retried_writes`.execute(db);
  });

  it("gives up after three attempts, and never retries other failures", async () => {
    let attempts = 0;
    await expect(
      retriedTransaction(db, async () => {
        attempts += 1;
        throw conflict("40P01");
      }),
    ).rejects.toMatchObject({ code: "40P01" });
    expect(attempts).toBe(3);

    attempts = 0;
    await expect(
      retriedTransaction(db, async () => {
        attempts += 1;
        throw conflict("23505");
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(attempts).toBe(1);
  });

  it("leaves a 503 for a conflict that escapes, not a 500", () => {
    expect(classifyUnexpected(conflict("40P01"))).toMatchObject({ _tag: "ServiceUnavailable" });
    expect(classifyUnexpected(conflict("40001"))).toMatchObject({ _tag: "ServiceUnavailable" });
  });
});
