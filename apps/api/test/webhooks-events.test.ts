/**
 * The api's debt and followup writes record their webhook events in the
 * change's own transaction: each wired operation leaves exactly one event
 * with one pending delivery (and its graphile-worker job) for the subscribed
 * endpoint, its payload equal to the API's own read of the resource; a batch
 * records all its events with one statement; a refused request records
 * nothing, and neither does a change whose commit fails. The worker does not
 * run: the outbox rows and jobs are the assertion.
 */
import { formatIsoOffset } from "@dc/contract";
import { sql } from "kysely";
import { beforeEach, describe, expect, it } from "vitest";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { jsonApi } from "./support/json-api.ts";
import { expectWebhookPayload } from "./support/webhooks-support.ts";

const t = await startTestApi();
const { ids } = t.api.services;
const api = jsonApi(t.request);
const rows = collectionRows(t.db, ids);
const acme = await t.tenant("Acme Collections");
const globex = await t.tenant("Globex");
const token = await t.token(acme);
const globexToken = await t.token(globex);
const companyId = rows.companyOf(acme);

const DEBTS = "/external-api/v1/debts";
const BATCH = "/external-api/v1/debts/batch";
const FOLLOWUPS = "/external-api/v1/followups";
const ENDPOINTS = "/external-api/v1/webhooks/endpoints";

/** A 500 carries the contract's envelope and nothing of the failure. */
const expectInternalError = async (response: Response, method: string, path: string) => {
  expect(response.status).toBe(500);
  expect(await expectContract(response, method, path)).toEqual({
    error: true,
    message: "Internal server error",
    code: 500,
  });
};

const WIRED = ["debt.created", "debt.updated", "debt.deleted", "followup.created", "followup.updated"] as const;
type Wired = (typeof WIRED)[number];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON bodies field by field
type Json = Record<string, any>;

const createEndpoint = async (accessToken: string, body: Json): Promise<number> => {
  const response = await api.post(ENDPOINTS, accessToken, body);
  expect(response.status).toBe(201);
  const { data } = await expectContract<{ data: { id: string } }>(response, "post", ENDPOINTS);
  return ids.decode("webhook_endpoint", data.id)!;
};

/** The endpoint every wired event must reach; the others must get nothing. */
const subscribed = await createEndpoint(token, { url: "http://127.0.0.1:9/wired", event_types: [...WIRED] });
const paymentsOnly = await createEndpoint(token, {
  url: "http://127.0.0.1:9/payments",
  event_types: ["payment.recorded"],
});
await createEndpoint(globexToken, { url: "http://127.0.0.1:9/globex" });

// Counts the statements inserting into the outbox, to prove a batch records its events with one.
// Commits of a debt or followup carrying a marker fail (deferred: at COMMIT, after everything the
// handler did, its events included), to force the rollback of a change that recorded events.
await sql`
  create table outbox_statements (table_name text not null);
  create function log_outbox_statement() returns trigger language plpgsql as $$
  begin insert into outbox_statements values (tg_table_name); return null; end $$;
  create trigger webhook_events_statements after insert on webhook_events
    for each statement execute function log_outbox_statement();
  create trigger webhook_deliveries_statements after insert on webhook_deliveries
    for each statement execute function log_outbox_statement();
  create function fail_commit_on_marker() returns trigger language plpgsql as $$
  declare subject jsonb;
  begin
    if tg_op = 'DELETE' then subject := to_jsonb(old); else subject := to_jsonb(new); end if;
    if subject ->> tg_argv[0] = tg_argv[1] then raise exception 'forced rollback (% on %)', tg_op, tg_table_name; end if;
    return null;
  end $$;
  create constraint trigger debts_fail_commit after insert or update on debts
    deferrable initially deferred for each row execute function fail_commit_on_marker('lastname', 'Rollback');
  create constraint trigger debts_fail_delete after delete on debts
    deferrable initially deferred for each row execute function fail_commit_on_marker('lastname', 'Rollback on delete');
  create constraint trigger followups_fail_commit after insert or update on followups
    deferrable initially deferred for each row execute function fail_commit_on_marker('notes', 'Rollback');
`.execute(t.db);

beforeEach(async () => {
  await sql`truncate outbox_statements`.execute(t.db);
  t.clock.advance(60_000);
});

/** Everything in the outbox, with each event's deliveries and their jobs. */
const outbox = async () => {
  const events = await t.db.selectFrom("webhook_events").selectAll().orderBy("id").execute();
  const deliveries = await t.db.selectFrom("webhook_deliveries").selectAll().orderBy("id").execute();
  const { rows: jobs } = await sql<{ key: string; task: string; payload: Json; queue_name: string | null }>`
    select j.key, t.identifier as task, j.payload, q.queue_name
    from graphile_worker._private_jobs j
    join graphile_worker._private_tasks t on t.id = j.task_id
    left join graphile_worker._private_job_queues q on q.id = j.job_queue_id
    order by j.id`.execute(t.db);
  return { events, deliveries, jobs };
};
type Outbox = Awaited<ReturnType<typeof outbox>>;

/**
 * How many event ids were ever drawn: a sequence is not transactional, so it
 * shows events that were written and then rolled back with their change.
 */
const eventIdsDrawn = async () =>
  (
    await sql<{ n: number }>`
      select coalesce(pg_sequence_last_value(pg_get_serial_sequence('webhook_events', 'id')), 0)::int as n`.execute(
      t.db,
    )
  ).rows[0]!.n;

const statements = async () => {
  const { rows: counted } = await sql<{ table_name: string; n: number }>`
    select table_name, count(*)::int4 as n from outbox_statements group by table_name order by table_name`.execute(
    t.db,
  );
  return Object.fromEntries(counted.map((row) => [row.table_name, row.n]));
};

/** What `action` added to the outbox, and how many event ids it drew (committed or not). */
const recordedBy = async (action: () => Promise<void>): Promise<Outbox & { readonly drawn: number }> => {
  const before = await outbox();
  const drawnBefore = await eventIdsDrawn();
  await action();
  const after = await outbox();
  const drawn = (await eventIdsDrawn()) - drawnBefore;
  const newer = <T extends { id: number }>(list: T[], old: T[]) => {
    const last = Math.max(0, ...old.map((row) => row.id));
    return list.filter((row) => row.id > last);
  };
  const oldKeys = new Set(before.jobs.map((job) => job.key));
  return {
    events: newer(after.events, before.events),
    deliveries: newer(after.deliveries, before.deliveries),
    jobs: after.jobs.filter((job) => !oldKeys.has(job.key)),
    drawn,
  };
};

/** Nothing in the outbox after `drawn` event ids were written and rolled back. */
const nothingRecorded = (drawn: number) => ({ events: [], deliveries: [], jobs: [], drawn });

/**
 * The events of `added`, one per expected payload and in its order: each with
 * `type`, its body `{type, timestamp, data}` valid per the document, exactly
 * one pending delivery to the subscribed endpoint, and that delivery's job.
 */
const expectEvents = (added: Outbox & { readonly drawn: number }, type: Wired, payloads: ReadonlyArray<unknown>) => {
  const now = t.clock.now();
  expect(added.drawn).toBe(payloads.length);
  expect(added.events.map((event) => event.type)).toEqual(payloads.map(() => type));
  expect(added.deliveries).toHaveLength(payloads.length);
  expect(added.jobs).toHaveLength(payloads.length);
  added.events.forEach((event, position) => {
    expect(event).toMatchObject({
      company_id: companyId,
      occurred_at: now,
      public_id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
    });
    const body = JSON.parse(event.payload) as unknown;
    expect(body).toEqual({ type, timestamp: now.toISOString(), data: payloads[position] });
    expectWebhookPayload(body, type);
    const deliveries = added.deliveries.filter((delivery) => delivery.event_id === event.id);
    expect(deliveries).toEqual([
      expect.objectContaining({
        company_id: companyId,
        endpoint_id: subscribed,
        status: "pending",
        attempt_count: 0,
        event_occurred_at: now,
      }),
    ]);
    const delivery = deliveries[0]!;
    expect(added.jobs.filter((job) => job.key === `webhook_delivery:${delivery.id}`)).toEqual([
      {
        key: `webhook_delivery:${delivery.id}`,
        task: "deliver_webhook",
        payload: { company_id: companyId, delivery_id: delivery.id },
        queue_name: null,
      },
    ]);
  });
  expect(added.deliveries.some((delivery) => delivery.endpoint_id === paymentsOnly)).toBe(false);
};

const readDebt = async (id: string): Promise<Json> => {
  const response = await api.get(`${DEBTS}/${id}`, token);
  expect(response.status).toBe(200);
  return (await expectContract<{ data: Json }>(response, "get", "/external-api/v1/debts/{id}")).data;
};

/** GET /followups/{id} as a followup.* payload carries it: without the one-hour links, with has_audio / has_pdf. */
const readFollowupAsPayload = async (id: string): Promise<Json> => {
  const response = await api.get(`${FOLLOWUPS}/${id}`, token);
  expect(response.status).toBe(200);
  const { data } = await expectContract<{ data: Json }>(response, "get", "/external-api/v1/followups/{id}");
  const { audio_url: audio, pdf_url: pdf, media_urls_expire_at: _expiry, ...rest } = data;
  return { ...rest, has_audio: audio !== null, has_pdf: pdf !== null };
};

const createDebt = async (body: Json): Promise<string> => {
  const response = await api.post(DEBTS, token, body);
  expect(response.status, await response.clone().text()).toBe(201);
  return (await expectContract<{ data: { id: string } }>(response, "post", DEBTS)).data.id;
};

const debtBody = (lastname: string): Json => ({
  lastname,
  firstname: "Claire",
  amount: 120.5,
  currency: "EUR",
  email: "claire@example.com",
});

describe("debt events", () => {
  it("POST /debts records one debt.created carrying the debt as GET /debts/{id} returns it", async () => {
    let id = "";
    const added = await recordedBy(async () => {
      id = await createDebt({ ...debtBody("Martin"), internal_id: "INV-1", metadata: { crm: 7 } });
    });
    expectEvents(added, "debt.created", [await readDebt(id)]);
    expect(await statements()).toEqual({ webhook_deliveries: 1, webhook_events: 1 });
  });

  it("POST /debts/batch records one debt.created per created debt, with one outbox statement", async () => {
    let created: Json[] = [];
    const added = await recordedBy(async () => {
      const response = await api.post(BATCH, token, {
        debts: [
          { temp_id: "a", ...debtBody("Able") },
          { temp_id: "bad", lastname: "", amount: -1, currency: "EUR" },
          { temp_id: "b", ...debtBody("Baker"), internal_id: "B-2" },
          { temp_id: "c", ...debtBody("Carter"), debtor_reference: "CUS-9" },
        ],
      });
      expect(response.status).toBe(201);
      const { data } = await expectContract<{ data: Json }>(response, "post", BATCH);
      expect(data["summary"]).toMatchObject({ total: 4, created: 3, failed: 1 });
      created = data["created"] as Json[];
    });
    const reads = await Promise.all(created.map((entry) => readDebt(entry["debt_id"] as string)));
    expectEvents(added, "debt.created", reads);
    expect(await statements()).toEqual({ webhook_deliveries: 1, webhook_events: 1 });
  });

  it.each(["PUT", "PATCH"] as const)(
    "%s /debts/{id} records one debt.updated carrying the debt after the change",
    async (method) => {
      const id = await createDebt(debtBody(`Before ${method}`));
      t.clock.advance(60_000);
      const added = await recordedBy(async () => {
        const response = await api.send(method, `${DEBTS}/${id}`, token, { lastname: `After ${method}`, city: "Lyon" });
        expect(response.status).toBe(200);
      });
      const read = await readDebt(id);
      expect(read).toMatchObject({ lastname: `After ${method}`, city: "Lyon" });
      expectEvents(added, "debt.updated", [read]);
    },
  );

  it("DELETE /debts/{id} records one debt.deleted with the ids and references read before the delete", async () => {
    const id = await createDebt({
      ...debtBody("Gone"),
      internal_id: "DEL-1",
      invoice_reference: "F-1",
      debtor_reference: "CUS-1",
    });
    const read = await readDebt(id);
    const added = await recordedBy(async () => {
      expect((await api.del(`${DEBTS}/${id}`, token)).status).toBe(200);
    });
    expect((await api.get(`${DEBTS}/${id}`, token)).status).toBe(404);
    expectEvents(added, "debt.deleted", [
      {
        id: read["id"],
        creditor_id: read["creditor_id"],
        internal_id: "DEL-1",
        invoice_reference: "F-1",
        debtor_reference: "CUS-1",
        deleted_at: formatIsoOffset(t.clock.now()),
      },
    ]);
  });

  it("records nothing for refused requests (400, 403, 404, 409)", async () => {
    const id = await createDebt({ ...debtBody("Kept"), internal_id: "KEEP-1" });
    const campaign = await t.db
      .selectFrom("campaigns")
      .select("id")
      .where("company_id", "=", companyId)
      .executeTakeFirstOrThrow();
    const managed = ids.encode("debt", await rows.debt(acme, { lastname: "Managed", campaign_id: campaign.id }));
    const added = await recordedBy(async () => {
      expect((await api.post(DEBTS, token, { lastname: "", amount: -5, currency: "EUR" })).status).toBe(400);
      expect((await api.post(DEBTS, token, { ...debtBody("Twin"), internal_id: "KEEP-1" })).status).toBe(409);
      expect((await api.patch(`${DEBTS}/${id}`, token, {})).status).toBe(400);
      // Refused inside the transaction, after the row was locked.
      expect((await api.patch(`${DEBTS}/${id}`, token, { lastname: null, firstname: null })).status).toBe(400);
      expect((await api.put(`${DEBTS}/${id}`, token, { timeline_id: "not-a-timeline" })).status).toBe(400);
      expect((await api.del(`${DEBTS}/${managed}`, token)).status).toBe(403);
      expect((await api.del(`${DEBTS}/${ids.encode("debt", 999_999)}`, token)).status).toBe(404);
      const batch = await api.post(BATCH, token, { debts: [{ lastname: "", amount: -1, currency: "EUR" }] });
      expect(batch.status).toBe(201);
    });
    expect(added).toEqual(nothingRecorded(0));
  });

  it("records nothing when the change is rolled back after its events were recorded", async () => {
    const updated = await createDebt(debtBody("Stays"));
    const deleted = await createDebt(debtBody("Rollback on delete"));
    const before = await t.db
      .selectFrom("debts")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    const added = await recordedBy(async () => {
      await expectInternalError(await api.post(DEBTS, token, debtBody("Rollback")), "post", DEBTS);
      const batch = await api.post(BATCH, token, {
        debts: [debtBody("Fine"), debtBody("Rollback"), debtBody("Also fine")],
      });
      await expectInternalError(batch, "post", BATCH);
      await expectInternalError(
        await api.patch(`${DEBTS}/${updated}`, token, { lastname: "Rollback" }),
        "patch",
        `${DEBTS}/{id}`,
      );
      await expectInternalError(await api.del(`${DEBTS}/${deleted}`, token), "delete", `${DEBTS}/{id}`);
    });
    // 1 + 3 + 1 + 1 events were written, then went with their change.
    expect(added).toEqual(nothingRecorded(6));
    const after = await t.db
      .selectFrom("debts")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
    expect(await readDebt(updated)).toMatchObject({ lastname: "Stays" });
    expect(await readDebt(deleted)).toMatchObject({ lastname: "Rollback on delete" });
  });
});

const debt = ids.encode("debt", await rows.debt(acme, { lastname: "Followed" }));

describe("followup events", () => {
  const createFollowup = async (body: Json): Promise<string> => {
    const response = await api.post(FOLLOWUPS, token, body);
    expect(response.status, await response.clone().text()).toBe(201);
    return (await expectContract<{ data: { id: string } }>(response, "post", FOLLOWUPS)).data.id;
  };

  it("POST /followups records one followup.created carrying the followup as GET /followups/{id} returns it", async () => {
    let id = "";
    const added = await recordedBy(async () => {
      id = await createFollowup({
        debt_id: debt,
        type: "call",
        status: "deal_found",
        call_date: "2026-11-20T14:30:00+02:00",
        notes: "Polite",
        audio_url: "https://recordings.example/calls/1.mp3",
        duration_ms: 65_000,
      });
    });
    const payload = await readFollowupAsPayload(id);
    expect(payload).toMatchObject({ has_audio: true, has_pdf: false, credits_charged: expect.any(Number) });
    expectEvents(added, "followup.created", [payload]);
  });

  it.each(["PUT", "PATCH"] as const)(
    "%s /followups/{id} records one followup.updated carrying the followup after the change",
    async (method) => {
      const id = await createFollowup({ debt_id: debt, type: "email" });
      t.clock.advance(60_000);
      const added = await recordedBy(async () => {
        const response = await api.send(method, `${FOLLOWUPS}/${id}`, token, {
          status: "sent",
          summary: `Sent by ${method}`,
        });
        expect(response.status).toBe(200);
      });
      const payload = await readFollowupAsPayload(id);
      expect(payload).toMatchObject({ status: "sent", summary: `Sent by ${method}`, has_audio: false });
      expectEvents(added, "followup.updated", [payload]);
    },
  );

  it("records nothing for refused requests, nor when the change is rolled back", async () => {
    const id = await createFollowup({ debt_id: debt, type: "sms", notes: "Kept" });
    const added = await recordedBy(async () => {
      expect((await api.post(FOLLOWUPS, token, { debt_id: debt, type: "pigeon" })).status).toBe(400);
      expect((await api.post(FOLLOWUPS, token, { debt_id: ids.encode("debt", 999_999), type: "sms" })).status).toBe(
        404,
      );
      expect((await api.patch(`${FOLLOWUPS}/${id}`, token, {})).status).toBe(400);
      expect((await api.patch(`${FOLLOWUPS}/${id}`, token, { status: "exploded" })).status).toBe(400);
      await expectInternalError(
        await api.post(FOLLOWUPS, token, { debt_id: debt, type: "sms", notes: "Rollback" }),
        "post",
        FOLLOWUPS,
      );
      await expectInternalError(
        await api.patch(`${FOLLOWUPS}/${id}`, token, { notes: "Rollback" }),
        "patch",
        `${FOLLOWUPS}/{id}`,
      );
    });
    // The two rolled-back changes had written their events.
    expect(added).toEqual(nothingRecorded(2));
    expect(await readFollowupAsPayload(id)).toMatchObject({ notes: "Kept" });
  });
});
