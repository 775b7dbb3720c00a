/**
 * The api's statement timeout (docs/decisions/0020): a request whose
 * statement waits on a lock held elsewhere, or runs too long, is cancelled by
 * PostgreSQL after `DATABASE_STATEMENT_TIMEOUT_MS` and answered 503 with
 * `Retry-After`, its transaction rolled back and the connection given back,
 * instead of holding a connection of the pool for as long as the lock lasts.
 */
import { messages } from "@dc/contract";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { jsonApi } from "./support/json-api.ts";

const t = await startTestApi();
const bounded = await t.startAnotherApi({
  environment: { LOG_LEVEL: "info", DATABASE_STATEMENT_TIMEOUT_MS: "1000", DATABASE_POOL_SIZE: "1" },
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

describe("the operations whose one statement grows with the company's backlog", () => {
  const ENDPOINTS = "/external-api/v1/webhooks/endpoints";
  const BACKLOG = 30_000;
  // The shortest statement timeout there is, so the backlog's statement outlasts it on any machine.
  const STATEMENT_TIMEOUT_MS = 100;
  let backlogApi: Awaited<ReturnType<typeof t.startAnotherApi>>;
  let api: ReturnType<typeof jsonApi>;
  beforeAll(async () => {
    backlogApi = await t.startAnotherApi({
      environment: {
        DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
        DATABASE_BULK_STATEMENT_TIMEOUT_MS: "120000",
      },
    });
    api = jsonApi((path, init) => fetch(`${backlogApi.url}${path}`, init));
  });
  afterAll(() => backlogApi.stop());

  /** An endpoint of the company with `BACKLOG` deliveries in `status`, written straight into PostgreSQL. */
  const endpointWithBacklog = async (status: "failed" | "pending", name: string) => {
    const created = await api.post(ENDPOINTS, token, { url: `http://127.0.0.1:9/${name}` });
    expect(created.status, await created.clone().text()).toBe(201);
    const endpointId = ((await created.json()) as { data: { id: string } }).data.id;
    const endpointKey = t.api.services.ids.decode("webhook_endpoint", endpointId)!;
    const companyKey = t.api.services.ids.decode("company", tenant.company_id)!;
    await sql`
      with events as (
        insert into webhook_events (company_id, public_id, type, payload, occurred_at)
        select ${companyKey}, ${name} || '-' || n, 'debt.updated', '{}', now() from generate_series(1, ${BACKLOG}) n
        returning id, company_id, occurred_at
      )
      insert into webhook_deliveries (company_id, endpoint_id, event_id, event_occurred_at, status, attempt_count)
      select company_id, ${endpointKey}, id, occurred_at, ${status}, 1 from events`.execute(t.db);
    return { path: `${ENDPOINTS}/${endpointId}`, endpointKey };
  };

  const statuses = async (endpointKey: number) =>
    (
      await sql<{ status: string; n: number }>`
        select status, count(*)::int as n from webhook_deliveries where endpoint_id = ${endpointKey} group by status`.execute(
        t.db,
      )
    ).rows;

  it("replays a backlog of failed deliveries that takes longer than the statement timeout", async () => {
    const { path, endpointKey } = await endpointWithBacklog("failed", "replayed-backlog");
    const started = performance.now();
    const replayed = await api.post(`${path}/replay-failed`, token, undefined);
    const elapsedMs = performance.now() - started;
    expect(replayed.status, await replayed.clone().text()).toBe(202);
    expect((await expectContract(replayed, "post", `${ENDPOINTS}/{id}/replay-failed`)).data).toEqual({
      deliveries_queued: BACKLOG,
    });
    expect(await statuses(endpointKey)).toEqual([{ status: "pending", n: BACKLOG }]);
    // Not a timing target: the reason this test exists. Below it, the backlog proves nothing.
    expect(elapsedMs, "the replay was too quick to need the longer budget: raise BACKLOG").toBeGreaterThan(
      STATEMENT_TIMEOUT_MS,
    );
  });

  it("disables an endpoint whose pending backlog takes longer than the statement timeout to settle", async () => {
    const { path, endpointKey } = await endpointWithBacklog("pending", "disabled-backlog");
    const disabled = await api.patch(path, token, { enabled: false });
    expect(disabled.status, await disabled.clone().text()).toBe(200);
    expect(await statuses(endpointKey)).toEqual([{ status: "disabled", n: BACKLOG }]);
  });
});
