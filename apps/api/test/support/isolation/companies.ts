/**
 * A company populated for the tenant-isolation sweep, through the real API
 * wherever an operation exists (debts, debtors by reference, followups,
 * webhook endpoints and the events they record, snapshots) and directly in
 * PostgreSQL for payments, which only the snapshot worker writes. Every
 * value carries the company's prefix, so a leak is a plain substring.
 */
import { randomUUID } from "node:crypto";
import { enrollDebts } from "@dc/db";
import { expect } from "vitest";
import type { CreatedTenant } from "../../../src/admin/tenants.ts";
import { expectContract } from "../contract-validator.ts";
import type { startTestApi } from "../harness.ts";
import { jsonApi } from "../json-api.ts";
import { accountRow, rowsBody } from "../snapshots.ts";

type TestApi = Awaited<ReturnType<typeof startTestApi>>;

const DEBTS = "/external-api/v1/debts";
const FOLLOWUPS = "/external-api/v1/followups";
const ENDPOINTS = "/external-api/v1/webhooks/endpoints";
const SNAPSHOT = "/external-api/v1/campaigns/{apiReference}/snapshots/{snapshotReference}";

/** The snapshot references every seeded company has, by the state each is left in. */
export const seededSnapshots = {
  /** One-request snapshot, accepted (pending). */
  submitted: "submitted",
  /** Staged snapshot started for one row, no chunk yet: chunk 0 is next. */
  started: "started",
  /** Staged snapshot started for one row with its chunk 0 in: ready to finalize. */
  complete: "complete",
} as const;

export interface SeededCompany {
  readonly tenant: CreatedTenant;
  readonly companyId: number;
  /** Every scope. */
  readonly token: string;
  readonly prefix: string;
  readonly debtId: string;
  /** An api-created debt kept apart for DELETE. */
  readonly spareDebtId: string;
  readonly debtorId: string;
  readonly followupId: string;
  /** A debtor request awaiting review (validated by the sweep). */
  readonly todoId: string;
  /** A second one kept apart for the rejection. */
  readonly spareTodoId: string;
  /** The followup's signed audio link, as a read of the followup returns it. */
  readonly audioUrl: string;
  readonly paymentId: string;
  readonly endpointId: string;
  /** An endpoint kept apart for DELETE. */
  readonly spareEndpointId: string;
  readonly endpointSecret: string;
  readonly eventId: string;
  /** `seededSnapshots` key -> the company's reference. */
  readonly snapshotReference: (state: keyof typeof seededSnapshots) => string;
  /** Every string that would betray this company in another company's response. */
  readonly traces: ReadonlyArray<string>;
}

/**
 * Provisions a company named `name` and fills it; `prefix` (lower case, unique
 * among the test's companies) marks each of its values.
 */
export const seedCompany = async (t: TestApi, name: string, prefix: string): Promise<SeededCompany> => {
  const { ids } = t.api.services;
  const api = jsonApi(t.request);
  const tenant = await t.tenant(name);
  const companyId = ids.decode("company", tenant.company_id)!;
  const token = await t.token(tenant);
  /** The `data` of a write answered `status`, read through the document (POST unless told). */
  const created = async <T>(response: Response, path: string, status = 201, method = "post"): Promise<T> => {
    expect(response.status, `${path}: ${await response.clone().text()}`).toBe(status);
    return (await expectContract<{ data: T }>(response, method, path)).data;
  };

  // Endpoints first, so the writes below record events with deliveries.
  const endpoint = await created<{ id: string; secret: string }>(
    await api.post(ENDPOINTS, token, { url: `http://127.0.0.1:9/${prefix}-hooks`, description: `${prefix} hooks` }),
    ENDPOINTS,
  );
  const spareEndpoint = await created<{ id: string }>(
    await api.post(ENDPOINTS, token, { url: `http://127.0.0.1:9/${prefix}-spare` }),
    ENDPOINTS,
  );

  const debtBody = (n: number) => ({
    creditor_id: tenant.creditor_id,
    firstname: `${prefix}first`,
    lastname: `${prefix}last${n}`,
    email: `${prefix}.debtor${n}@example.com`,
    amount: 120 + n,
    currency: "EUR",
    internal_id: `${prefix}-debt-${n}`,
    debtor_reference: `${prefix}-debtor-1`,
    timeline_id: tenant.timeline_id,
  });
  const debt = await created<{ id: string; debtor_id: string | null }>(
    await api.post(DEBTS, token, debtBody(1)),
    DEBTS,
  );
  const spare = await created<{ id: string }>(await api.post(DEBTS, token, debtBody(2)), DEBTS);
  if (debt.debtor_id === null) throw new Error("the debt got no debtor from its debtor_reference");
  // On its timeline, as creation puts it (a no-op where creation already did), for the debt-timeline operations.
  await t.db
    .transaction()
    .execute((trx) =>
      enrollDebts(trx, { companyId, debtIds: [ids.decode("debt", debt.id)!], now: t.clock.now(), restart: false }),
    );

  const followup = await created<{ id: string }>(
    await api.post(FOLLOWUPS, token, {
      debt_id: debt.id,
      type: "call",
      summary: `${prefix} call summary`,
      audio_url: `https://recordings.example/${prefix}-call.mp3`,
    }),
    FOLLOWUPS,
  );
  const read = await api.get(`${FOLLOWUPS}/${followup.id}`, token);
  const audioUrl = (await expectContract<{ data: { audio_url: string } }>(read, "get", `${FOLLOWUPS}/{id}`)).data
    .audio_url;

  const [todo, spareTodo] = await t.db
    .insertInto("debtor_requests")
    .values(
      (["hardship", "portal_dispute"] as const).map((type) => ({
        company_id: companyId,
        debt_id: ids.decode("debt", debt.id)!,
        type,
        blocking: true,
        message: `${prefix} ${type} message`,
      })),
    )
    .returning("id")
    .execute();

  const paymentId = randomUUID();
  await t.db
    .insertInto("payments")
    .values({
      id: paymentId,
      company_id: companyId,
      debt_id: ids.decode("debt", debt.id)!,
      provider: "internal",
      kind: "direct",
      amount_minor: 2_000,
      currency: "EUR",
      status: "succeeded",
      paid_at: new Date("2026-11-01T09:00:00Z"),
      external_payment_id: `${prefix}-payment-1`,
    })
    .execute();

  const reference = (state: keyof typeof seededSnapshots) => `${prefix}-${seededSnapshots[state]}`;
  const snapshotPath = (state: keyof typeof seededSnapshots, suffix = "") =>
    `/external-api/v1/campaigns/${tenant.campaign_api_reference}/snapshots/${reference(state)}${suffix}`;
  const row = accountRow(1, { internal_id: `${prefix}-acct-1`, lastname: `${prefix}snapshot` });
  const send = (method: string, path: string, body?: string) =>
    t.request(path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body }),
    });
  await created(await send("PUT", snapshotPath("submitted"), rowsBody([row])), SNAPSHOT, 202, "put");
  for (const state of ["started", "complete"] as const) {
    const start = await send("POST", snapshotPath(state, "/start"), JSON.stringify({ expected_row_count: 1 }));
    expect(start.status, await start.clone().text()).toBe(201);
  }
  const chunk = await send("PUT", snapshotPath("complete", "/chunks/0"), rowsBody([row]));
  expect(chunk.status, await chunk.clone().text()).toBe(201);

  const event = await t.db
    .selectFrom("webhook_events")
    .select("public_id")
    .where("company_id", "=", companyId)
    .orderBy("id")
    .executeTakeFirstOrThrow();

  return {
    tenant,
    companyId,
    token,
    prefix,
    debtId: debt.id,
    spareDebtId: spare.id,
    debtorId: debt.debtor_id,
    followupId: followup.id,
    todoId: ids.encode("debtor_request", todo!.id),
    spareTodoId: ids.encode("debtor_request", spareTodo!.id),
    audioUrl,
    paymentId,
    endpointId: endpoint.id,
    spareEndpointId: spareEndpoint.id,
    endpointSecret: endpoint.secret,
    eventId: event.public_id,
    snapshotReference: reference,
    traces: [
      prefix,
      name,
      tenant.company_id,
      tenant.creditor_id,
      tenant.timeline_id,
      tenant.campaign_api_reference,
      tenant.client_id,
      tenant.user_email,
      debt.id,
      spare.id,
      debt.debtor_id,
      followup.id,
      ids.encode("debtor_request", todo!.id),
      ids.encode("debtor_request", spareTodo!.id),
      paymentId,
      endpoint.id,
      spareEndpoint.id,
      endpoint.secret,
      event.public_id,
    ],
  };
};
