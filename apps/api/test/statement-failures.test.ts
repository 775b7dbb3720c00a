/**
 * Unexpected failures, swept over the OpenAPI document: every operation is
 * sent, valid and meant to succeed, once for each statement it runs, with
 * that statement made to fail (`armFault` of @dc/testing). Whatever
 * the statement (admission, a read, BEGIN, a write, COMMIT), the answer must
 * be the documented error with no internals and nothing may be written; once
 * the request runs fewer statements than the fault waits for, it succeeds,
 * which proves each failure was the fault's doing. Two kinds of failure:
 *
 * - one the api cannot classify (a bug, an unforeseen condition): 500
 *   `Internal server error`, and the error in the log, not the response;
 * - the database unavailable (PostgreSQL ended the session): 503
 *   `Service temporarily unavailable` with `Retry-After`.
 *
 * The document says how each operation answers them (docs/decisions/0685):
 * the API envelope, OAuth's shape for the OAuth endpoints, an HTML page for
 * the pages that declare their failures as pages (`text/html`, 503 with
 * `Retry-After`), and for the ones that declare none (the open pixel and the
 * tracked link), their success: the debtor's image or redirect stands,
 * nothing is recorded, and an unexpected failure is logged all the same.
 * The public routes are sent as their callers send them: the e-mail routes
 * with the platform's signed tokens, the debtor page by a browser that passed
 * its identity check, the providers' callbacks signed by their fakes.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { debtorLinks, debtorPagePath, emailTrackingTokens } from "@dc/crypto";
import { Retell, Twilio } from "@dc/providers";
import {
  armFault,
  disarmFault,
  publicTables,
  rowsDigests,
  startFakeLob,
  startFakeRetell,
  startFakeTwilio,
  unavailableError,
  unexpectedError,
} from "@dc/testing";
import { messages } from "@dc/contract";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { API_POOL_NAMES } from "../src/server.ts";
import { expectContract } from "./support/contract-validator.ts";
import { collectionRows } from "./support/collection-rows.ts";
import { startTestApi } from "./support/harness.ts";
import { seedCompany } from "./support/isolation/companies.ts";
import { type DocumentedOperation, documentedOperations, fillPath } from "./support/isolation/operations.ts";
import { authorizePath, csrfTokenOf, registerClient } from "./support/oauth-flow.ts";
import {
  basicAuthorization,
  checkoutCompleted,
  lobLetter,
  placeRetellCall,
  POSTMARK_CREDENTIALS,
  postmarkHardBounce,
  signInOnDebtorPage,
  STRIPE_SECRET_KEY,
  STRIPE_WEBHOOK_SECRET,
  stripeNotificationHeaders,
} from "./support/public-requests.ts";
import { accountRow, rowsBody } from "./support/snapshots.ts";

const t = await startTestApi();
const company = await seedCompany(t, "Faultline Receivables", "faultline");
/** The sandbox operations exist for sandbox companies only: they are sent with one's token. */
const sandboxBearer = { authorization: `Bearer ${await t.token(await t.sandboxTenant("Faultline Sandbox"))}` };
const redirectUri = "https://faultline.example/callback";
const client = await registerClient(t, company.tenant, { redirectUris: [redirectUri] });
const authorizeParameters = {
  response_type: "code",
  client_id: client.client_id,
  redirect_uri: redirectUri,
  state: "f-1",
};

// The providers whose callbacks the public routes take, each signing its own (docs/channels.md).
const twilioAccount = { accountSid: "AC00000000000000000000000000000002", authToken: "faultline-twilio-auth-token" };
const LOB_WEBHOOK_SECRET = "faultline_lob_webhook_secret";
const twilio = await startFakeTwilio(twilioAccount);
const retell = await startFakeRetell();
const lob = await startFakeLob({ apiKey: "unused" });

// A second api on the same database, with every provider configured, whose rate limits no sweep can exhaust and whose log the test reads.
const api = await t.startAnotherApi({
  environment: {
    LOG_LEVEL: "info",
    RATE_LIMIT_SCALE: "1000000",
    TWILIO_ACCOUNT_SID: twilioAccount.accountSid,
    TWILIO_AUTH_TOKEN: twilioAccount.authToken,
    RETELL_API_KEY: retell.apiKey,
    LOB_API_KEY: "test_lob_key_0123456789",
    LOB_WEBHOOK_SECRET,
    STRIPE_SECRET_KEY,
    STRIPE_WEBHOOK_SECRET,
    POSTMARK_WEBHOOK_CREDENTIALS: POSTMARK_CREDENTIALS,
  },
});
const { logLines } = api;
afterAll(async () => {
  await api.stop();
  await Promise.all([twilio.close(), retell.close(), lob.close()]);
});

const { ids, config } = t.api.services;
const debtKey = ids.decode("debt", company.debtId)!;
/** An e-mail the engine sent for the seeded debt: the one its tracking tokens name. */
const email = {
  companyId: company.companyId,
  followupId: await collectionRows(t.db, ids).followup(company.tenant, debtKey, { type: "email", status: "sent" }),
};
const emailAddress = "faultline.debtor1@example.com";
const emailTokens = emailTrackingTokens(config.idEncryptionKey);
const CLICK_TARGET = "https://faultline.example/pay?invoice=1";
/** A person's browser: a fetch it makes is counted every time, unlike a prefetcher's. */
const person = { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/126.0 Safari/537.36" };
/** The seeded debt's page, and a browser that passed its identity check there. */
const debtorPageToken = debtorLinks(config.idEncryptionKey).token({ companyId: company.companyId, debtId: debtKey }, t.clock.now());
const debtorSession = await signInOnDebtorPage(
  (path, init = {}) => fetch(`${api.url}${path}`, { redirect: "manual", ...init }),
  debtorPagePath(debtorPageToken),
  "faultlinelast1",
);

/** The sign-in form of the authorization page: its cookie and anti-forgery token. */
const signInForm = async () => {
  const page = await fetch(`${api.url}${authorizePath(authorizeParameters)}`, { redirect: "manual" });
  expect(page.status, await page.clone().text()).toBe(200);
  const cookie = page.headers
    .getSetCookie()
    .map((header) => header.split(";")[0])
    .join("; ");
  return { cookie, csrfToken: csrfTokenOf(await page.text()) };
};

interface Call {
  readonly path: string;
  readonly method: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

const bearer = { authorization: `Bearer ${company.token}` };
const json = (body: unknown) => ({
  headers: { ...bearer, "content-type": "application/json" },
  body: typeof body === "string" ? body : JSON.stringify(body),
});
const form = (fields: Record<string, string>, headers: Record<string, string> = {}) => ({
  headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
  body: new URLSearchParams(fields).toString(),
});
const clientCredentials = { client_id: company.tenant.client_id, client_secret: company.tenant.client_secret };

/** A fresh token of the company, for the revocation: each operation's own, since its success revokes it. */
const freshToken = async () => {
  const response = await t.tokenResponse({ grant_type: "client_credentials", ...clientCredentials });
  return ((await response.json()) as { access_token: string }).access_token;
};

/** A debt and a webhook endpoint per failure kind, each deleted by the success that ends its sweep. */
const created = async (path: string, body: unknown) => {
  const response = await send({ path, method: "POST", ...json(body) });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { data: { id: string } }).data.id;
};

/**
 * The path parameters that make each operation succeed on the seeded
 * company, in the sweep of failure kind `variant` (fresh snapshot references
 * where the operation creates the snapshot, a spare debt and endpoint to delete).
 */
const pathValues = (operationId: string, variant: Variant): Record<string, string> => ({
  id:
    {
      deleteDebt: variant.spareDebtId,
      deleteWebhookEndpoint: variant.spareEndpointId,
      getFollowup: company.followupId,
      updateFollowup: company.followupId,
      patchFollowup: company.followupId,
      getDebtor: company.debtorId,
      getCreditor: company.tenant.creditor_id,
      updateCreditor: company.tenant.creditor_id,
      patchCreditor: company.tenant.creditor_id,
      validateTodo: variant.todoIds.validateTodo,
      rejectTodo: variant.todoIds.rejectTodo,
    }[operationId] ?? (operationId.includes("Webhook") ? company.endpointId : company.debtId),
  debtId: company.debtId,
  debtorId: company.debtorId,
  creditorId: company.tenant.creditor_id,
  eventId: company.eventId,
  apiReference: company.tenant.campaign_api_reference,
  snapshotReference:
    {
      submitSnapshot: `faultline-${variant.name}-one-request`,
      getSnapshot: company.snapshotReference("submitted"),
      startStagedSnapshot: `faultline-${variant.name}-staged`,
      uploadSnapshotChunk: company.snapshotReference("started"),
      finalizeSnapshot: company.snapshotReference("complete"),
    }[operationId] ?? "",
  chunkIndex: "0",
  key: decodeURIComponent(new URL(company.audioUrl).pathname.split("/").at(-1)!),
  token: debtorPageToken,
  company_id: company.tenant.company_id,
});

const snapshotRows = rowsBody([accountRow(3, { internal_id: "faultline-acct-3", lastname: "faultline" })]);

type Extra = Omit<Call, "path" | "method">;

/** A provider's form-encoded callback to `path`, signed as Twilio signs it. */
const twilioCallback = (path: string, params: Record<string, string>): Extra => ({
  headers: {
    "content-type": "application/x-www-form-urlencoded",
    [Twilio.TWILIO_SIGNATURE_HEADER]: twilio.sign(`${api.url}${path}`, params),
  },
  body: new URLSearchParams(params).toString(),
});

/**
 * What each operation sends besides its path (`path`, filled): valid, and
 * accepted on the seeded company; each provider event is a new one, so its
 * success writes.
 */
const requests: Readonly<Record<string, (variant: Variant, path: string) => Promise<Extra> | Extra>> = {
  issueToken: () => form({ grant_type: "client_credentials", ...clientCredentials }),
  issueTokenAlias: () => form({ grant_type: "client_credentials", ...clientCredentials }),
  revokeToken: async () => form({ token: await freshToken(), ...clientCredentials }),
  authorize: () => ({}),
  submitAuthorization: async () => {
    const { cookie, csrfToken } = await signInForm();
    return form(
      {
        ...authorizeParameters,
        csrf_token: csrfToken,
        action: "sign_in",
        email: company.tenant.user_email,
        password: company.tenant.user_password,
      },
      { cookie },
    );
  },
  getMedia: () => ({}),
  createFollowup: () => json({ debt_id: company.debtId, type: "email", summary: "faultline reminder" }),
  updateFollowup: () => json({ notes: "faultline note", status: "on_hold" }),
  patchFollowup: () => json({ summary: "faultline summary" }),
  createCreditor: ({ name }) => json({ name: `Faultline ${name} Creditor`, email: `${name}@faultline.example` }),
  updateCreditor: () => json({ city: "Faultline City" }),
  patchCreditor: () => json({ phone: "+33600000001" }),
  createDebt: ({ name }) =>
    json({
      lastname: "Faultline",
      amount: 42.5,
      currency: "EUR",
      internal_id: `faultline-${name}-new`,
      debtor_reference: `faultline-${name}-debtor`,
    }),
  createDebtsBatch: ({ name }) =>
    json({
      batch_name: `faultline ${name} batch`,
      debts: [
        { temp_id: "a", lastname: "Faultline", amount: 10, currency: "EUR", internal_id: `faultline-${name}-batch-1` },
        { temp_id: "b", lastname: "Faultline", amount: 11, currency: "EUR", internal_id: `faultline-${name}-batch-2` },
      ],
    }),
  updateDebt: () => json({ object: "faultline object", due_date: "2026-12-31" }),
  patchDebt: () => json({ city: "Faultline Town" }),
  submitSnapshot: () => json(snapshotRows),
  startStagedSnapshot: () => json({ expected_row_count: 1 }),
  uploadSnapshotChunk: () => json(snapshotRows),
  finalizeSnapshot: () => ({ headers: bearer }),
  createWebhookEndpoint: ({ name }) => json({ url: `http://127.0.0.1:9/faultline-${name}` }),
  updateWebhookEndpoint: () => json({ description: "faultline sweep" }),
  pauseDebtTimeline: () => json({ reason: "faultline pause" }),
  validateTodo: () => json({ note: "faultline validation" }),
  rejectTodo: () => json({ note: "faultline rejection" }),
  getSandboxClock: () => ({ headers: sandboxBearer }),
  listSandboxMessages: () => ({ headers: sandboxBearer }),
  openEmailPixel: () => ({ headers: person }),
  followEmailLink: () => ({ headers: person }),
  showEmailUnsubscribe: () => ({}),
  unsubscribeFromEmail: () => form({ "List-Unsubscribe": "One-Click" }),
  receivePostmarkWebhook: () => ({
    headers: { "content-type": "application/json", authorization: basicAuthorization(POSTMARK_CREDENTIALS) },
    body: JSON.stringify(postmarkHardBounce(emailTokens.sign("bounce", email), emailAddress)),
  }),
  showDebtorPage: () => ({ headers: { cookie: debtorSession.b.cookie() } }),
  submitDebtorPage: ({ name }) =>
    form(
      { csrf_token: debtorSession.csrf, action: "hardship", message: `faultline ${name} hardship` },
      { cookie: debtorSession.b.cookie() },
    ),
  receiveStripeWebhook: () => {
    const body = checkoutCompleted({
      id: `cs_faultline_${randomUUID()}`,
      amountMinor: 100,
      currency: "EUR",
      paymentIntent: `pi_faultline_${randomUUID()}`,
      metadata: { company_id: company.tenant.company_id, debt_id: company.debtId },
    });
    return { headers: stripeNotificationHeaders(body, t.clock.now()), body };
  },
  twilioMessageStatus: (_, path) =>
    twilioCallback(path, {
      MessageSid: `SM${randomBytes(16).toString("hex")}`,
      MessageStatus: "delivered",
      AccountSid: twilioAccount.accountSid,
      To: "+33612345678",
    }),
  twilioIncomingMessage: (_, path) =>
    twilioCallback(path, twilio.incoming({ from: "+33612345678", to: "+14155550100", body: "faultline reply" })),
  retellCallEvents: async (_, path) => {
    const callId = await placeRetellCall(retell, company.tenant.company_id, `${api.url}${path}`);
    const { rawBody, signature } = await retell.webhook(callId, "call_started", t.clock.now().getTime());
    return { headers: { "content-type": "application/json", [Retell.RETELL_SIGNATURE_HEADER]: signature }, body: rawBody };
  },
  lobLetterEvents: () => {
    const letter = lobLetter(company.tenant, `ltr_${randomBytes(8).toString("hex")}`);
    return lob.event(letter, "letter.delivered", LOB_WEBHOOK_SECRET, { at: t.clock.now() });
  },
};

/**
 * Operations this sweep cannot run to success, and why. The clock advance
 * succeeds only once the worker's job ran, and there is no worker here; its
 * one write is the job it queues, a whole command that carries on whatever
 * the request's answer (documented: repeating the request is safe).
 * sandbox.test.ts covers it.
 */
const unswept: ReadonlySet<string> = new Set(["advanceSandboxClock"]);

const operations = documentedOperations().filter((operation) => !unswept.has(operation.operationId));

/** The query strings the operations that need one are sent with. */
const queries: Readonly<Record<string, () => string>> = {
  getMedia: () => new URL(company.audioUrl).search,
  authorize: () => authorizePath(authorizeParameters).slice("/oauth/authorize".length),
  openEmailPixel: () => `?t=${emailTokens.sign("open", email)}`,
  followEmailLink: () => `?t=${emailTokens.sign("click", email, CLICK_TARGET)}`,
  showEmailUnsubscribe: () => `?t=${emailTokens.sign("unsubscribe", email)}`,
  unsubscribeFromEmail: () => `?t=${emailTokens.sign("unsubscribe", email)}`,
};

const callFor = async (operation: DocumentedOperation, variant: Variant): Promise<Call> => {
  const path = fillPath(operation.path, pathValues(operation.operationId, variant));
  const query = queries[operation.operationId]?.() ?? "";
  const extra = await (requests[operation.operationId] ?? (() => ({ headers: bearer })))(variant, path);
  return { path: `${path}${query}`, method: operation.method.toUpperCase(), ...extra };
};

const send = (call: Call) =>
  fetch(`${api.url}${call.path}`, {
    method: call.method,
    redirect: "manual",
    ...(call.headers === undefined ? {} : { headers: call.headers }),
    ...(call.body === undefined ? {} : { body: call.body }),
  });

/**
 * Every row of every table and the job queue, as a digest per table; but the
 * rate-limit counters, which count every admitted request, answered or not.
 */
const everything = async () => {
  const tables = (await publicTables(t.db, { withCompany: false })).filter((name) => name !== "rate_limit_counters");
  if (tables.length < 30) throw new Error(`only ${tables.length} tables found`);
  return rowsDigests(t.db, [
    ...tables.map((name) => [name, sql`${sql.table(name)} as r`] as const),
    ["jobs", sql`graphile_worker._private_jobs as r`],
  ]);
};

/** Only the api's own statements fail: not the test's, nor the snapshot-status listener's. */
const apiConnections: ReadonlySet<string> = new Set(Object.values(API_POOL_NAMES));

/**
 * The operations that read no database, whose answer therefore stands when
 * the database fails: the OAuth metadata is the running configuration.
 */
const statementFree: ReadonlySet<string> = new Set(["getAuthorizationServerMetadata"]);

/** A request cannot run more statements than this; reaching it means the sweep is broken. */
const MAX_STATEMENTS = 60;

interface Variant {
  readonly name: string;
  readonly spareDebtId: string;
  readonly spareEndpointId: string;
  /** Todos awaiting review, one per review operation: a review succeeds once. */
  readonly todoIds: Readonly<Record<"validateTodo" | "rejectTodo", string>>;
}

/** A debtor request of the seeded company's debt awaiting review. */
const todo = async (name: string) => {
  const { id } = await t.db
    .insertInto("debtor_requests")
    .values({
      company_id: company.companyId,
      debt_id: t.api.services.ids.decode("debt", company.debtId)!,
      type: "hardship",
      blocking: true,
      message: `faultline ${name} hardship`,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return t.api.services.ids.encode("debtor_request", id);
};

const variant = async (name: string): Promise<Variant> => ({
  name,
  todoIds: { validateTodo: await todo(name), rejectTodo: await todo(name) },
  spareDebtId: await created("/external-api/v1/debts", {
    lastname: "Spare",
    amount: 5,
    currency: "EUR",
    internal_id: `faultline-${name}-spare`,
  }),
  spareEndpointId: await created("/external-api/v1/webhooks/endpoints", { url: `http://127.0.0.1:9/${name}-spare` }),
});

const failures = [
  {
    kind: "an unexpected failure",
    variant: await variant("unexpected"),
    status: 500,
    message: messages.internal,
    error: unexpectedError,
    retryAfter: null,
    oauthError: "server_error",
  },
  {
    kind: "the database unavailable",
    variant: await variant("unavailable"),
    status: 503,
    message: messages.serviceUnavailable,
    error: unavailableError,
    retryAfter: "5",
    oauthError: "temporarily_unavailable",
  },
] as const;

/** The operations whose errors are OAuth's `{error, error_description}`, not the api envelope. */
const oauthShaped = new Set(["issueToken", "issueTokenAlias", "revokeToken"]);

/**
 * How the document says `operation` answers a failure of `status`: in the
 * API envelope (or OAuth's shape), as an HTML page, or, when it declares no
 * such answer, with its success.
 */
const failureAnswer = (operation: DocumentedOperation, status: number): "envelope" | "oauth" | "page" | "success" => {
  const declared = operation.operation.responses[String(status)];
  if (declared === undefined) return "success";
  if (declared.content?.["text/html"] !== undefined) return "page";
  return oauthShaped.has(operation.operationId) ? "oauth" : "envelope";
};

/**
 * The operations that answer their success whatever the database
 * (docs/decisions/0685): a debtor never sees a broken image or a dead link
 * because recording the open or the click failed. What their success must
 * still carry.
 */
const successStands: Readonly<Record<string, (response: Response) => void>> = {
  openEmailPixel: (response) => expect(response.headers.get("content-type")).toBe("image/gif"),
  followEmailLink: (response) => expect(response.headers.get("location")).toBe(CLICK_TARGET),
};

describe("the sweep covers the document", () => {
  it("finds every operation, and a request for each that needs a body", () => {
    expect(operations.length).toBeGreaterThanOrEqual(50);
    const missing = operations
      .filter(
        (operation) =>
          operation.hasBody && requests[operation.operationId] === undefined && !unswept.has(operation.operationId),
      )
      .map((operation) => operation.operationId);
    expect(missing).toEqual([]);
  });

  it("finds the failure answer of every operation in the document; only the pixel and the link keep their success", () => {
    const succeeding = operations
      .filter((operation) => !statementFree.has(operation.operationId))
      .filter((operation) => failures.some((failure) => failureAnswer(operation, failure.status) === "success"))
      .map((operation) => operation.operationId);
    expect(succeeding.sort()).toEqual(Object.keys(successStands).sort());
    const pages = operations.filter((operation) => failureAnswer(operation, 500) === "page").map((operation) => operation.operationId);
    expect(pages.sort()).toEqual(
      ["authorize", "submitAuthorization", "showDebtorPage", "submitDebtorPage", "showEmailUnsubscribe", "unsubscribeFromEmail"].sort(),
    );
  });
});

describe.each(failures)("$kind at any statement", (failure) => {
  for (const operation of operations) {
    const label = `${operation.method.toUpperCase()} ${operation.path} (${operation.operationId})`;
    it(`${label}: ${failure.status} with no internals and nothing written, at every statement`, async () => {
      let statements = 0;
      for (let failAt = 1; ; failAt++) {
        expect(failAt, `${label} never succeeded`).toBeLessThanOrEqual(MAX_STATEMENTS);
        const call = await callFor(operation, failure.variant);
        const before = await everything();
        const logged = logLines.length;
        armFault(failAt, failure.error, apiConnections);
        const response = await send(call);
        const text = await response.clone().text();
        const outcome = await disarmFault();
        if (outcome.failed === undefined) {
          // Fewer statements than the fault waited for: the request ran untouched, and succeeded.
          expect(response.status, `${label}, no fault: ${text}`).toBeLessThan(400);
          statements = outcome.issued;
          break;
        }
        const where = `${label}, statement ${failAt} failed (${outcome.failed.slice(0, 80)})`;
        const answer = failureAnswer(operation, failure.status);
        expect(text, where).not.toMatch(/injected|SECRET-INTERNAL-DETAIL|administrator command|\bat .+:\d+:\d+/);
        if (answer === "success") {
          // The debtor's image or redirect all the same; nothing recorded (below).
          expect(response.status, `${where}: ${text}`).toBe(operation.successStatuses[0]);
          expect(response.headers.get("retry-after"), where).toBeNull();
          successStands[operation.operationId]!(response);
        } else {
          expect(response.status, `${where}: ${text}`).toBe(failure.status);
          expect(response.headers.get("retry-after"), where).toBe(failure.retryAfter);
        }
        if (answer === "page") {
          expect(response.headers.get("content-type"), where).toBe("text/html; charset=utf-8");
        } else if (answer === "oauth") {
          // The OAuth endpoints answer every failure as RFC 6749 5.2 does.
          expect(await expectContract(response, operation.method, operation.path), where).toEqual({
            error: failure.oauthError,
            error_description: failure.message,
          });
        } else if (answer === "envelope") {
          expect(await expectContract(response, operation.method, operation.path), where).toEqual({
            error: true,
            message: failure.message,
            code: failure.status,
          });
        }
        expect(await everything(), `${where}: something was written`).toEqual(before);
        if (failure.status === 500) {
          const line = logLines.slice(logged).find((entry) => entry.includes("SECRET-INTERNAL-DETAIL"));
          expect(line, `${where}: the error is not logged`).toBeDefined();
        }
      }
      if (statementFree.has(operation.operationId)) expect(statements, `${label} ran a statement`).toBe(0);
      else expect(statements, `${label} ran no statement`).toBeGreaterThan(0);
    });
  }
});
