/**
 * Tenant isolation, swept over the OpenAPI document rather than a hand-kept
 * list: every operation with a path parameter is called by company B (a
 * token with every scope) with company A's real ids and a body that succeeds
 * on B's own ids. Each must answer exactly what the document prescribes for
 * another company's id, in the contract's envelope, betray none of A's ids
 * or names, and write nothing (a fingerprint of both companies' rows and the
 * job queue); the same call on B's own ids then succeeds, so the refusal is
 * about ownership, not input. Tenant-wide reads by B show nothing of A, and
 * ids carried in bodies and queries are checked the same way.
 */
import { mediaMessages, messages, sandboxMessages, webhookMessages } from "@dc/contract";
import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { seedCompany, type SeededCompany } from "./support/isolation/companies.ts";
import { fingerprint, jobCount } from "./support/isolation/fingerprint.ts";
import {
  type DocumentedOperation,
  documentedForeignOutcome,
  documentsError,
  fillPath,
  type ForeignOutcome,
  idBearingOperations,
  isPaginatedList,
  parameterKind,
  tenantWideReads,
} from "./support/isolation/operations.ts";
import { jsonApi } from "./support/json-api.ts";
import { accountRow, rowsBody } from "./support/snapshots.ts";

const t = await startTestApi();
const api = jsonApi(t.request);
const a = await seedCompany(t, "Alpha Isolation Holdings", "alphaiso");
const b = await seedCompany(t, "Bravo Isolation Partners", "bravoiso");
const both = [a.companyId, b.companyId];
/** Both companies' rows and the job queue: what a refused request must leave as it was. */
const stored = async () => ({ rows: await fingerprint(t.db, both), jobs: await jobCount(t.db) });
const aBeforeSweep = await fingerprint(t.db, [a.companyId]);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON bodies field by field
type Json = Record<string, any>;

interface Pair {
  /** Names company A's resource. */
  readonly foreign: string;
  /** Names company B's own resource of the same kind, in the state the operation needs to succeed. */
  readonly own: string;
}
const pair = (of: (company: SeededCompany) => string): Pair => ({ foreign: of(a), own: of(b) });

/** The media key of a signed link: `<company>.<followup>.audio`. */
const mediaKeyOf = (url: string) => decodeURIComponent(new URL(url).pathname.split("/").at(-1)!);

/** Which of each company's snapshots an operation acts on (fresh: a reference neither company used yet). */
const snapshotOf: Readonly<Record<string, (company: SeededCompany) => string>> = {
  submitSnapshot: (company) => `${company.prefix}-fresh-one-request`,
  getSnapshot: (company) => company.snapshotReference("submitted"),
  startStagedSnapshot: (company) => `${company.prefix}-fresh-staged`,
  uploadSnapshotChunk: (company) => company.snapshotReference("started"),
  finalizeSnapshot: (company) => company.snapshotReference("complete"),
};

/**
 * Path parameter kind (see `parameterKind`) -> company A's and company B's
 * value for an operation. A parameter of the document without a row here
 * fails the sweep: a new route cannot escape it.
 */
const fixtures: Readonly<Record<string, (operationId: string) => Pair>> = {
  "debts/{id}": (operationId) =>
    pair((company) => (operationId === "deleteDebt" ? company.spareDebtId : company.debtId)),
  debtId: () => pair((company) => company.debtId),
  "followups/{id}": () => pair((company) => company.followupId),
  "todos/{id}": (operationId) =>
    pair((company) => (operationId === "rejectTodo" ? company.spareTodoId : company.todoId)),
  "debtors/{id}": () => pair((company) => company.debtorId),
  debtorId: () => pair((company) => company.debtorId),
  "creditors/{id}": () => pair((company) => company.tenant.creditor_id),
  creditorId: () => pair((company) => company.tenant.creditor_id),
  "endpoints/{id}": (operationId) =>
    pair((company) => (operationId === "deleteWebhookEndpoint" ? company.spareEndpointId : company.endpointId)),
  eventId: () => pair((company) => company.eventId),
  apiReference: () => pair((company) => company.tenant.campaign_api_reference),
  snapshotReference: (operationId) => {
    const of = snapshotOf[operationId];
    if (of === undefined) throw new Error(`no snapshot fixture for ${operationId}`);
    return pair(of);
  },
  // Not an id: the index a started snapshot expects next, the same in both companies.
  chunkIndex: () => ({ foreign: "0", own: "0" }),
  // A's media key presented with B's own signature: B cannot sign A's key.
  key: () => pair((company) => mediaKeyOf(company.audioUrl)),
};

const snapshotRows = rowsBody([accountRow(7, { internal_id: "bravoiso-acct-7", lastname: "bravoisosnapshot" })]);

/** The body (and query) each write operation sends: valid, and accepted on B's own ids. */
const requests: Readonly<Record<string, { readonly body?: unknown; readonly query?: string }>> = {
  updateFollowup: { body: { notes: "bravoiso sweep note", status: "on_hold" } },
  patchFollowup: { body: { summary: "bravoiso sweep summary" } },
  updateCreditor: { body: { city: "Bravoiso City", contactPerson: "Bravoiso Contact" } },
  patchCreditor: { body: { phone: "+33600000000" } },
  updateDebt: { body: { object: "bravoiso sweep object", due_date: "2026-12-31" } },
  patchDebt: { body: { city: "Bravoiso Town" } },
  submitSnapshot: { body: snapshotRows },
  startStagedSnapshot: { body: { expected_row_count: 1 } },
  uploadSnapshotChunk: { body: snapshotRows },
  updateWebhookEndpoint: { body: { description: "bravoiso sweep" } },
  pauseDebtTimeline: { body: { reason: "bravoiso sweep pause" } },
  validateTodo: { body: { note: "bravoiso sweep validation" } },
  rejectTodo: { body: { note: "bravoiso sweep rejection" } },
  getMedia: { query: new URL(b.audioUrl).search },
};

/**
 * Where the document files no "another company's id" answer, the answer the
 * sweep expects, and why. Each must still be a documented error of the operation.
 */
const exceptions: Readonly<Record<string, ForeignOutcome & { readonly why: string }>> = {
  getMedia: {
    status: 403,
    message: mediaMessages.invalidSignature,
    why: "the link's signature, not a token, is the credential; a key naming another company's followup is an altered key",
  },
};

/**
 * Id-bearing operations that no company's token authenticates, so "company B
 * with company A's ids" has no B to call them: the credential is the request
 * itself, and their isolation is tested where that credential is checked
 * (docs/decisions/0686). Each must be public in the document: this set
 * cannot take a token-authenticated operation out of the sweep.
 */
const publicCredentialOperations: Readonly<Record<string, string>> = {
  showDebtorPage:
    "the link's token names one company's debt and is the credential; a token signed with another key, naming " +
    "another company's debt, or with altered bits shows nothing: debtor-page.test.ts",
  submitDebtorPage: "as showDebtorPage: a forged token takes no form and writes nothing: debtor-page.test.ts",
  twilioMessageStatus:
    "Twilio's signature authenticates the platform's provider, the path names the company; a signed status on B's " +
    "path naming A's MessageSid changes nothing of A: apps/worker/test/channels/callback-isolation.test.ts",
  twilioIncomingMessage:
    "as twilioMessageStatus; a reply on B's path from A's debtor's number changes nothing of A: " +
    "apps/worker/test/channels/callback-isolation.test.ts",
  retellCallEvents:
    "Retell's signature authenticates the provider; a call's outcome on B's path naming A's call_id or followup " +
    "changes nothing of A: apps/worker/test/channels/callback-isolation.test.ts; one whose metadata names " +
    "another company than its path is refused: retell-callbacks.test.ts",
};

const operations = idBearingOperations().filter((operation) => !(operation.operationId in publicCredentialOperations));

const expectedFor = (operation: DocumentedOperation): ForeignOutcome =>
  documentedForeignOutcome(operation) ?? exceptions[operation.operationId]!;

const parametersFor = (operation: DocumentedOperation, side: keyof Pair): Record<string, string> =>
  Object.fromEntries(
    operation.pathParameters.map((name) => [
      name,
      fixtures[parameterKind(operation.path, name)]!(operation.operationId)[side],
    ]),
  );

const call = (operation: DocumentedOperation, side: keyof Pair) => {
  const { body, query = "" } = requests[operation.operationId] ?? {};
  return t.request(`${fillPath(operation.path, parametersFor(operation, side))}${query}`, {
    method: operation.method.toUpperCase(),
    headers: {
      authorization: `Bearer ${b.token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    redirect: "manual",
  });
};

/** The body and headers of a response, for the leak check. */
const visibleText = async (response: Response) =>
  `${[...response.headers].map(([name, value]) => `${name}: ${value}`).join("\n")}\n${await response.clone().text()}`;

const expectNoTraceOf = (company: SeededCompany, text: string, where: string) => {
  for (const trace of company.traces)
    expect(text, `${where} shows ${company.prefix}'s "${trace}"`).not.toContain(trace);
};

describe("the sweep covers the document", () => {
  it("finds the id-bearing operations, and has a fixture, a body and a prescribed answer for each", () => {
    expect(operations.length).toBeGreaterThanOrEqual(29);
    const gaps = operations.flatMap((operation) => {
      const label = `${operation.method.toUpperCase()} ${operation.path}`;
      return [
        ...operation.pathParameters
          .map((name) => parameterKind(operation.path, name))
          .filter((kind) => fixtures[kind] === undefined)
          .map((kind) => `${label}: no fixture for path parameter kind "${kind}"`),
        ...(operation.hasBody && requests[operation.operationId]?.body === undefined
          ? [`${label}: no request body`]
          : []),
        ...(documentedForeignOutcome(operation) === undefined && exceptions[operation.operationId] === undefined
          ? [`${label}: documents no answer to another company's id, and has no exception`]
          : []),
      ];
    });
    expect(gaps).toEqual([]);
    for (const operationId of Object.keys(publicCredentialOperations)) {
      const operation = idBearingOperations().find((candidate) => candidate.operationId === operationId);
      expect(operation, `${operationId} is left out of the sweep but is not an id-bearing operation`).toBeDefined();
      expect(operation!.operation.security, `${operationId} is left out of the sweep but takes a token`).toEqual([]);
    }
    for (const [operationId, exception] of Object.entries(exceptions)) {
      const operation = operations.find((candidate) => candidate.operationId === operationId);
      expect(operation, `exception for ${operationId}, which is not swept`).toBeDefined();
      expect(documentsError(operation!, exception.status, exception.message), exception.why).toBe(true);
    }
  });
});

describe("every id-bearing operation, called by company B with company A's ids", () => {
  for (const operation of operations) {
    const label = `${operation.method.toUpperCase()} ${operation.path} (${operation.operationId})`;
    it(`${label}: the prescribed refusal, nothing of A shown, nothing written; B's own ids succeed`, async () => {
      const expected = expectedFor(operation);
      const before = await stored();
      const response = await call(operation, "foreign");
      const text = await visibleText(response);
      expect(response.status, text).toBe(expected.status);
      expect(await expectContract(response, operation.method, operation.path)).toEqual({
        error: true,
        message: expected.message,
        code: expected.status,
      });
      expectNoTraceOf(a, text, label);
      expect(await stored(), `${label} was refused but wrote`).toEqual(before);

      const own = await call(operation, "own");
      expect(operation.successStatuses, `${label} on B's own ids: ${await own.clone().text()}`).toContain(own.status);
      const body = await expectContract<Json>(own, operation.method, operation.path);
      expect(body["error"]).toBe(false);
    });
  }

  it("left every row of company A exactly as it was", async () => {
    expect(await fingerprint(t.db, [a.companyId])).toEqual(aBeforeSweep);
  });
});

/**
 * Tenant-wide reads that exist only for sandbox companies: B, a live
 * company, gets their documented 404, which shows nothing of anyone
 * (sandbox.test.ts covers one sandbox company's reads of another's ids).
 */
const sandboxOnlyReads = new Set(["getSandboxClock", "listSandboxMessages"]);

describe("tenant-wide reads by company B", () => {
  for (const operation of tenantWideReads().filter((read) => sandboxOnlyReads.has(read.operationId))) {
    it(`GET ${operation.path} answers a live company the documented 404 and shows nothing of A`, async () => {
      const response = await t.get(operation.path, b.token);
      expect(response.status).toBe(404);
      expect(documentsError(operation, 404, sandboxMessages.notSandbox)).toBe(true);
      expectNoTraceOf(a, await visibleText(response), `GET ${operation.path} for B`);
    });
  }
  for (const operation of tenantWideReads().filter((read) => !sandboxOnlyReads.has(read.operationId))) {
    const list = isPaginatedList(operation);
    it(`GET ${operation.path} shows none of company A's ids or names`, async () => {
      const path = `${operation.path}${list ? "?limit=100" : ""}`;
      const response = await t.get(path, b.token);
      expect(response.status, await response.clone().text()).toBe(200);
      const text = await visibleText(response);
      const body = await expectContract<Json>(response, "get", operation.path);
      expectNoTraceOf(a, text, `GET ${operation.path} for B`);
      if (!list) return;
      expect(body["pagination"]["total"]).toBe(body["data"].length);
      // The traces are meaningful: where A's own read lists something, it shows A.
      const theirBody = (await (await t.get(path, a.token)).json()) as Json;
      if (theirBody["data"].length > 0)
        expect(a.traces.some((trace) => JSON.stringify(theirBody).includes(trace))).toBe(true);
    });
  }
});

describe("company A's ids carried in bodies and queries", () => {
  const refusal = async (response: Response, method: string, path: string, expected: Json) => {
    const text = await visibleText(response);
    expect(response.status, text).toBe(expected["code"]);
    expect(await expectContract(response, method, path)).toEqual({ error: true, ...expected });
    expectNoTraceOf(a, text, `${method.toUpperCase()} ${path}`);
  };

  it("POST /followups on A's debt is 403 `Access denied to this debt` (contract 4.6) and writes nothing", async () => {
    const before = await stored();
    const response = await api.post("/external-api/v1/followups", b.token, { debt_id: a.debtId, type: "email" });
    await refusal(response, "post", "/external-api/v1/followups", { message: messages.debtAccessDenied, code: 403 });
    expect(await stored()).toEqual(before);
  });

  it("POST /debts and POST /debts/batch with A's creditor or timeline name the field and write nothing", async () => {
    const before = await stored();
    const debt = { lastname: "bravoisolast9", amount: 10, currency: "EUR" };
    for (const [field, value] of [
      ["creditor_id", a.tenant.creditor_id],
      ["timeline_id", a.tenant.timeline_id],
    ] as const) {
      const single = await api.post("/external-api/v1/debts", b.token, { ...debt, [field]: value });
      expect(single.status).toBe(400);
      const body = await expectContract<Json>(single, "post", "/external-api/v1/debts");
      expect(Object.keys(body["details"])).toEqual([field]);
      expectNoTraceOf(a, JSON.stringify(body), `POST /debts with A's ${field}`);
    }
    const batch = await api.post("/external-api/v1/debts/batch", b.token, {
      creditor_id: a.tenant.creditor_id,
      debts: [{ ...debt, temp_id: "t-1" }],
    });
    const text = await visibleText(batch);
    expect(batch.status, text).toBe(201);
    expectNoTraceOf(a, text, "POST /debts/batch with A's creditor");
    const { data } = await expectContract<Json>(batch, "post", "/external-api/v1/debts/batch");
    expect(data["created"]).toEqual([]);
    expect(data["failed"]).toHaveLength(1);
    expect(data["failed"][0]["errors"].map((issue: Json) => issue["property"])).toEqual(["creditor_id"]);
    // The batch itself is recorded (B's import_batches row, decisions/0107); nothing else moves.
    const after = await stored();
    expect(after.jobs).toBe(before.jobs);
    expect(Object.keys(after.rows).filter((table) => after.rows[table] !== before.rows[table])).toEqual([
      "import_batches",
    ]);
  });

  it("PATCH of B's own debt to A's timeline is refused on `timeline_id`", async () => {
    const before = await stored();
    const response = await api.patch(`/external-api/v1/debts/${b.debtId}`, b.token, {
      timeline_id: a.tenant.timeline_id,
    });
    expect(response.status).toBe(400);
    const body = await expectContract<Json>(response, "patch", "/external-api/v1/debts/{id}");
    expect(Object.keys(body["details"])).toEqual(["timeline_id"]);
    expect(await stored()).toEqual(before);
  });

  it("GET /followups?debt_id= with A's debt lists nothing", async () => {
    const response = await t.get(`/external-api/v1/followups?debt_id=${a.debtId}`, b.token);
    const text = await visibleText(response);
    expect(response.status, text).toBe(200);
    const body = await expectContract<Json>(response, "get", "/external-api/v1/followups");
    expect(body["data"]).toEqual([]);
    expect(body["pagination"]["total"]).toBe(0);
    expectNoTraceOf(a, text, "GET /followups?debt_id=<A's debt>");
  });

  it("replaying B's own event to A's endpoint (`endpoint_id`) is 404 `Webhook endpoint not found` and writes nothing", async () => {
    const before = await stored();
    const path = "/external-api/v1/webhooks/events/{eventId}/replay";
    const response = await api.post(
      `/external-api/v1/webhooks/events/${b.eventId}/replay?endpoint_id=${a.endpointId}`,
      b.token,
      undefined,
    );
    await refusal(response, "post", path, { message: webhookMessages.endpointNotFound, code: 404 });
    expect(await stored()).toEqual(before);
  });
});
