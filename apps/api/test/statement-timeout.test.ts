/**
 * The api's statement timeout (docs/decisions/0020): a request whose
 * statement waits on a lock held elsewhere, or runs too long, is cancelled by
 * PostgreSQL after `DATABASE_STATEMENT_TIMEOUT_MS` and answered 503 with
 * `Retry-After`, its transaction rolled back and the connection given back,
 * instead of holding a connection of the pool for as long as the lock lasts.
 */
import { messages } from "@dc/contract";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { jsonApi } from "./support/json-api.ts";

const t = await startTestApi();
const bounded = await t.startAnotherApi({
  environment: { LOG_LEVEL: "info", DATABASE_STATEMENT_TIMEOUT_MS: "300", DATABASE_POOL_SIZE: "1" },
});
const { logLines } = bounded;
afterAll(() => bounded.stop());

const DEBTS = "/external-api/v1/debts";
const DEBT = `${DEBTS}/{id}`;
const tenant = await t.tenant("Locked Out Ltd");
const token = await t.token(tenant);
const api = jsonApi((path, init) => fetch(`${bounded.url}${path}`, init));
const created = await api.post(DEBTS, token, {
  lastname: "Locked",
  amount: 10,
  currency: "EUR",
  internal_id: "locked-1",
});
expect(created.status).toBe(201);
const debtId = ((await created.json()) as { data: { id: string } }).data.id;
const debtKey = t.api.services.ids.decode("debt", debtId)!;

const cityOf = async () =>
  (await t.db.selectFrom("debts").select("city").where("id", "=", debtKey).executeTakeFirstOrThrow()).city;

describe("a statement that waits past the statement timeout", () => {
  it("is answered 503 with Retry-After, writes nothing, and leaves the pool serving", async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked: () => void = () => {};
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    // Another session holds the debt's row, as a long snapshot apply or a stuck transaction would.
    const holder = t.db.transaction().execute(async (trx) => {
      await sql`select id from debts where id = ${debtKey} for update`.execute(trx);
      locked();
      await released;
    });
    await isLocked;
    try {
      const refused = await api.patch(DEBT.replace("{id}", debtId), token, { city: "Never Written" });
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("5");
      expect(await expectContract(refused, "patch", DEBT)).toEqual({
        error: true,
        message: messages.serviceUnavailable,
        code: 503,
      });
      expect(
        logLines.some((line) => line.includes('"code":"57014"') && line.includes("unexpected error translated")),
      ).toBe(true);
      // The only connection of the main pool was given back: the next request is served.
      const profile = await api.get("/external-api/v1/company/profile", token);
      expect(profile.status).toBe(200);
    } finally {
      release();
      await holder;
    }
    expect(await cityOf()).toBeNull();
    const accepted = await api.patch(DEBT.replace("{id}", debtId), token, { city: "Written" });
    expect(accepted.status, await accepted.clone().text()).toBe(200);
    expect(await cityOf()).toBe("Written");
  });
});
