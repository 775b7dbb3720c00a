/**
 * The debtor page over real HTTP (docs/decisions/0670-0674): links forged
 * or expired, the identity check and its throttling, sessions bound to
 * their debt, anti-forgery tokens, the Stripe-compatible provider faked on
 * a socket (the session request's shape, signed webhooks: forged 403,
 * stale 400, replay recorded once, a settling payment stopping the
 * timeline in its transaction), the requests the forms record
 * with their `debtor_request.created` events, and a dispute's attachment
 * (docs/decisions/0674): PDF or PNG stored with the dispute and downloaded
 * by its company only; too large, of another type, or two files refused,
 * naming the field in the debtor's language, with nothing written.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { stripeWebhookMessages } from "@dc/contract";
import { debtorLinks } from "@dc/crypto";
import { afterAll, describe, expect, it } from "vitest";
import { mediaSigner } from "../src/media/signed-urls.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { fingerprint } from "./support/isolation/fingerprint.ts";
import { jsonApi } from "./support/json-api.ts";
import {
  checkoutCompleted,
  csrfOf,
  debtorBrowser,
  signInOnDebtorPage,
  STRIPE_SECRET_KEY as SECRET_KEY,
  STRIPE_WEBHOOK_SECRET as WEBHOOK_SECRET,
  stripeNotificationHeaders,
} from "./support/public-requests.ts";
import { expectWebhookPayload } from "./support/webhooks-support.ts";

interface StripeRequest {
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
  readonly form: URLSearchParams;
}
const stripeRequests: StripeRequest[] = [];
const fakeStripe = createServer((req, res) => {
  let body = "";
  req.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
  req.on("end", () => {
    stripeRequests.push({ path: req.url ?? "", headers: req.headers, form: new URLSearchParams(body) });
    const id = `cs_test_${stripeRequests.length}`;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ id, object: "checkout.session", url: `https://checkout.stripe.com/c/pay/${id}` }));
  });
});
await new Promise<void>((resolve) => fakeStripe.listen(0, "127.0.0.1", resolve));
afterAll(() => new Promise<void>((resolve) => fakeStripe.close(() => resolve())));
const stripeUrl = `http://127.0.0.1:${(fakeStripe.address() as AddressInfo).port}`;

const t = await startTestApi();
const api = await t.startAnotherApi({
  environment: { STRIPE_BASE_URL: stripeUrl, STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET },
});
afterAll(() => api.stop());
const request = (path: string, init: RequestInit = {}) => fetch(`${api.url}${path}`, { redirect: "manual", ...init });
const json = jsonApi(request);

const tenant = await t.tenant("Page Collections");
const other = await t.tenant("Other Collections");
const token = await t.token(tenant);
const otherToken = await t.token(other);
const endpoint = await json.post("/external-api/v1/webhooks/endpoints", token, {
  url: "http://127.0.0.1:9/requests",
  event_types: ["debtor_request.created"],
});
expect(endpoint.status).toBe(201);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON bodies field by field
type Json = Record<string, any>;

const createDebt = async (accessToken: string, fields: Json = {}) => {
  const response = await json.post("/external-api/v1/debts", accessToken, {
    lastname: "Lefèvre-Dupont",
    firstname: "Amélie",
    postal_code: "75011",
    country: "FR",
    amount: 250,
    currency: "EUR",
    object: "Invoice for winter heating",
    due_date: "2026-10-01",
    ...fields,
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as Json)["data"] as Json;
};

const browser = () => debtorBrowser(request);
const pathOf = (link: string) => new URL(link).pathname;

const signIn = (path: string, name = "lefevre dupont", second = "75 011") => signInOnDebtorPage(request, path, name, second);

const paymentsOf = async (debtId: string) => {
  const response = await json.get(`/external-api/v1/debts/${debtId}/payments`, token);
  return ((await response.json()) as Json)["data"] as Json[];
};

/** Stripe's `checkout.session.completed` of the latest session the page opened, paid `amountMinor` in EUR. */
const latestCheckoutCompleted = (amountMinor: number, paymentIntent: string) => {
  const sent = stripeRequests.at(-1)!;
  return checkoutCompleted({
    id: `cs_test_${stripeRequests.length}`,
    amountMinor,
    currency: "EUR",
    paymentIntent,
    metadata: Object.fromEntries(["company_id", "debt_id"].map((key) => [key, sent.form.get(`metadata[${key}]`)!])),
  });
};

describe("the debtor page", () => {
  it("gives every debt without its own link a signed link on the api's origin, and keeps a company's own", async () => {
    const debt = await createDebt(token);
    expect(debt["payment_link"]).toMatch(new RegExp(`^${api.url}/pay/[A-Za-z0-9_-]{48}$`));
    const own = await createDebt(token, { payment_link: "https://pay.example/abc" });
    expect(own["payment_link"]).toBe("https://pay.example/abc");
    const read = await json.get(`/external-api/v1/debts/${debt["id"]}`, token);
    expect(((await read.json()) as Json)["data"]["payment_link"]).toBe(debt["payment_link"]);
  });

  it("refuses forged links (404) and expired ones (410), showing nothing of the debt", async () => {
    const debt = await createDebt(token);
    const path = pathOf(debt["payment_link"]);
    const forged = `${path.slice(0, -1)}${path.endsWith("A") ? "B" : "A"}`;
    const refused = await request(forged);
    expect(refused.status).toBe(404);
    expect(await refused.text()).not.toContain("Lef");
    const companyId = api.services.ids.decode("company", tenant.company_id)!;
    const debtId = api.services.ids.decode("debt", debt["id"])!;
    const old = debtorLinks(api.services.config.idEncryptionKey).token({ companyId, debtId }, new Date(t.clock.now().getTime() - 200 * 86_400_000));
    const expired = await request(`/pay/${old}`);
    expect(expired.status).toBe(410);
    expect(await expired.text()).not.toContain("250");
  });

  it("checks identity blind to case, accents and spaces, throttles failures per link, and needs the form token", async () => {
    const debt = await createDebt(token);
    const path = pathOf(debt["payment_link"]);
    const b = browser();
    const page = await b.send(path);
    const html = await page.text();
    expect(page.headers.get("content-security-policy")).toContain("script-src 'none'");
    expect(html).not.toContain("250");
    expect(html).toContain('lang="fr"');
    const csrf = csrfOf(html);
    const forgedForm = await b.post(path, { csrf_token: "x", action: "verify", name: "Lefèvre-Dupont", second: "75011" });
    expect(forgedForm.status).toBe(403);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const failed = await b.post(path, { csrf_token: csrf, action: "verify", name: "Lefèvre-Dupont", second: "75012" });
      expect(failed.status).toBe(401);
    }
    const throttled = await b.post(path, { csrf_token: csrf, action: "verify", name: "Lefèvre-Dupont", second: "75011" });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0);

    const fresh = await createDebt(token);
    const { html: shown } = await signIn(pathOf(fresh["payment_link"]), " LEFEVRE dupont ");
    expect(shown).toContain("250,00");
    expect(shown).toContain("Invoice for winter heating");
    expect(shown).toContain("Page Collections Receivables");
  });

  it("ignores a query parameter sent twice: the page shows as without it, in the country's language", async () => {
    const debt = await createDebt(token);
    const path = pathOf(debt["payment_link"]);
    const english = await request(`${path}?lang=en`);
    expect(english.status).toBe(200);
    expect(await english.text()).toContain('lang="en"');
    for (const query of ["lang=en&lang=en", "lang=en&lang=fr"]) {
      const twice = await request(`${path}?${query}`);
      expect(twice.status).toBe(200);
      expect(twice.headers.get("content-type")).toContain("text/html");
      expect(await twice.text()).toContain('lang="fr"');
    }
    const { b } = await signIn(path);
    expect(await (await b.send(`${path}?done=plan`)).text()).toContain('role="status"');
    const twice = await b.send(`${path}?done=plan&done=plan`);
    expect(twice.status).toBe(200);
    const html = await twice.text();
    expect(html).toContain("250,00");
    expect(html).not.toContain('role="status"');
  });

  it("never shows another debt or another company's debt to a session", async () => {
    const mine = await createDebt(token);
    const theirs = await createDebt(otherToken, { lastname: "Lefèvre-Dupont" });
    const { b } = await signIn(pathOf(mine["payment_link"]));
    const foreign = await b.send(pathOf(theirs["payment_link"]));
    const html = await foreign.text();
    expect(html).toContain('name="action" value="verify"');
    expect(html).not.toContain("250,00");
  });

  it("shows and takes nothing through a link re-signed for another debt: another key, another company, altered bits", async () => {
    const mine = await createDebt(token);
    const sibling = await createDebt(token, { amount: 412, object: "Sibling invoice" });
    const theirs = await createDebt(otherToken, { lastname: "Lefèvre-Dupont", amount: 731, object: "Their own invoice" });
    const companies = [tenant, other].map((company) => api.services.ids.decode("company", company.company_id)!);
    const [mineId, siblingId, theirsId] = [mine, sibling, theirs].map((debt) => api.services.ids.decode("debt", debt["id"])!);
    const now = t.clock.now();
    // Their debt, signed with a key that is not the platform's.
    const otherKey = debtorLinks(Buffer.alloc(32, 7)).token({ companyId: companies[1]!, debtId: theirsId! }, now);
    // Signed by the platform, but naming their debt under this company: the link binds the pair.
    const crossed = debtorLinks(api.services.config.idEncryptionKey).token({ companyId: companies[0]!, debtId: theirsId! }, now);
    // This debt's link with the encrypted debt id's bits flipped to its sibling's (AES-CTR is malleable; the MAC is not).
    const bytes = Buffer.from(pathOf(mine["payment_link"]).split("/").at(-1)!, "base64url");
    bytes.writeBigUInt64BE(bytes.readBigUInt64BE(16 + 9) ^ BigInt(mineId!) ^ BigInt(siblingId!), 16 + 9);
    const flipped = bytes.toString("base64url");

    const { b, csrf } = await signIn(pathOf(mine["payment_link"]));
    const before = await fingerprint(t.db, companies);
    for (const forged of [otherKey, crossed, flipped]) {
      const path = `/pay/${forged}`;
      const shown = await b.send(path);
      expect(shown.status, forged).toBe(404);
      const posted = await b.post(path, { csrf_token: csrf, action: "dispute", reason: "not_mine", message: "not mine" });
      expect(posted.status, forged).toBe(404);
      const verify = await browser().post(path, { csrf_token: csrf, action: "verify", name: "lefevre dupont", second: "75011" });
      expect(verify.status, forged).toBe(404);
      for (const html of [await shown.text(), await posted.text(), await verify.text()]) {
        for (const trace of ["731,00", "Their own invoice", "Other Collections", "412,00", "Sibling invoice", "250,00"]) {
          expect(html).not.toContain(trace);
        }
      }
    }
    expect(await fingerprint(t.db, companies)).toEqual(before);
  });

  it("pays part through the Stripe-compatible provider; the signed webhook records it once", async () => {
    const debt = await createDebt(token);
    const path = pathOf(debt["payment_link"]);
    const { b, csrf } = await signIn(path);
    const tooMuch = await b.post(path, { csrf_token: csrf, action: "pay", amount: "250.01", lang: "en" });
    expect(tooMuch.status).toBe(400);
    expect(await tooMuch.text()).toContain("Amount to pay");
    const paid = await b.post(path, { csrf_token: csrf, action: "pay", amount: "100.50" });
    expect(paid.status).toBe(303);
    const sent = stripeRequests.at(-1)!;
    expect(paid.headers.get("location")).toBe(`https://checkout.stripe.com/c/pay/cs_test_${stripeRequests.length}`);
    expect(sent.path).toBe("/v1/checkout/sessions");
    expect(sent.headers["authorization"]).toBe(`Bearer ${SECRET_KEY}`);
    expect(sent.headers["idempotency-key"]).toMatch(/^debtor-page:/);
    expect(sent.form.get("line_items[0][price_data][unit_amount]")).toBe("10050");
    expect(sent.form.get("line_items[0][price_data][currency]")).toBe("eur");
    expect(sent.form.get("metadata[debt_id]")).toBe(debt["id"]);
    expect(sent.form.get("success_url")).toContain(`${path}?lang=fr&done=paid`);

    const event = latestCheckoutCompleted(10050, "pi_123");
    const now = t.clock.now();
    const seconds = (offset: number) => new Date(now.getTime() + offset * 1000);
    const deliver = (headers: Record<string, string>) => request("/payments/stripe/webhook", { method: "POST", headers, body: event });
    const webhookAnswer = async (response: Response, status: number, message: string) => {
      expect(response.status).toBe(status);
      expect(await expectContract(response, "post", "/payments/stripe/webhook")).toEqual(
        status >= 400 ? { error: true, message, code: status } : { error: false, message },
      );
    };
    const answers = stripeWebhookMessages;
    await webhookAnswer(await deliver(stripeNotificationHeaders(event, now, "whsec_wrong_secret")), 403, answers.signatureMismatch);
    await webhookAnswer(await deliver(stripeNotificationHeaders(event, seconds(-301))), 400, answers.missingSignature);
    await webhookAnswer(await deliver({ "content-type": "application/json", "stripe-signature": "" }), 400, answers.missingSignature);
    expect(await paymentsOf(debt["id"])).toEqual([]);
    await webhookAnswer(await deliver(stripeNotificationHeaders(event, now)), 200, answers.recorded);
    await webhookAnswer(await deliver(stripeNotificationHeaders(event, seconds(10))), 200, answers.alreadyRecorded);
    const payments = await paymentsOf(debt["id"]);
    expect(payments).toMatchObject([{ provider: "stripe", external_payment_id: "pi_123", amount: 100.5, status: "succeeded" }]);
    const read = await json.get(`/external-api/v1/debts/${debt["id"]}`, token);
    expect(((await read.json()) as Json)["data"]["remaining_amount"]).toBe(149.5);
    const page = await (await b.send(path)).text();
    expect(page).toContain("149,50");
    expect(page).toContain("100,50");
  });

  it("stops the timeline when the webhook settles the debt: its due step is cancelled in the payment's transaction", async () => {
    const debt = await createDebt(token, { timeline_id: tenant.timeline_id });
    const path = pathOf(debt["payment_link"]);
    const debtId = api.services.ids.decode("debt", debt["id"])!;
    const companyId = api.services.ids.decode("company", tenant.company_id)!;
    const followups = () =>
      t.db.selectFrom("followups").select(["status"]).where("company_id", "=", companyId).where("debt_id", "=", debtId).execute();
    expect(await followups()).toEqual([{ status: "scheduled" }]);
    const { b, csrf } = await signIn(path);
    expect((await b.post(path, { csrf_token: csrf, action: "pay", amount: "250" })).status).toBe(303);
    const event = latestCheckoutCompleted(25000, "pi_settles");
    const answer = await request("/payments/stripe/webhook", { method: "POST", headers: stripeNotificationHeaders(event, t.clock.now()), body: event });
    expect(answer.status).toBe(200);
    // Cancelled, not scheduled: no sweep can claim it once the payment has committed.
    expect(await followups()).toEqual([{ status: "cancelled" }]);
    const timeline = await json.get(`/external-api/v1/debts/${debt["id"]}/timeline`, token);
    expect(((await timeline.json()) as Json)["data"]).toMatchObject({ state: "stopped", reason: "paid", next_action_at: null });
    const read = await json.get(`/external-api/v1/debts/${debt["id"]}`, token);
    expect(((await read.json()) as Json)["data"]).toMatchObject({ status: "status.default.paid", remaining_amount: 0 });
  });

  it("records plan proposals, disputes and hardship as suggested blocking requests, and preferences", async () => {
    const debt = await createDebt(token);
    const path = pathOf(debt["payment_link"]);
    const debtId = api.services.ids.decode("debt", debt["id"])!;
    const { b, csrf } = await signIn(path);
    const tooMany = await b.post(path, { csrf_token: csrf, action: "plan", count: "13", first_date: "2026-12-01" });
    expect(tooMany.status).toBe(422);
    expect(await b.post(path, { csrf_token: csrf, action: "plan", count: "3", first_date: "2026-12-01" })).toHaveProperty("status", 303);
    expect((await b.post(path, { csrf_token: csrf, action: "dispute", reason: "bogus" })).status).toBe(400);
    expect((await b.post(path, { action: "dispute", reason: "already_paid" })).status).toBe(403);
    expect(await b.post(path, { csrf_token: csrf, action: "dispute", reason: "already_paid", message: "Paid in May" })).toHaveProperty("status", 303);
    expect(await b.post(path, { csrf_token: csrf, action: "hardship", message: "Lost my job" })).toHaveProperty("status", 303);
    const companyId = api.services.ids.decode("company", tenant.company_id)!;
    const requests = await t.db
      .selectFrom("debtor_requests")
      .select(["type", "review_status", "blocking", "message", "content"])
      .where("company_id", "=", companyId)
      .where("debt_id", "=", debtId)
      .orderBy("id")
      .execute();
    expect(requests).toEqual([
      {
        type: "payment_plan",
        review_status: "suggested",
        blocking: true,
        message: null,
        content: {
          installments: [
            { amount_minor: 8333, payment_date: "2026-12-01" },
            { amount_minor: 8333, payment_date: "2027-01-01" },
            { amount_minor: 8334, payment_date: "2027-02-01" },
          ],
        },
      },
      { type: "portal_dispute", review_status: "suggested", blocking: true, message: "Paid in May", content: { reason: "already_paid" } },
      { type: "hardship", review_status: "suggested", blocking: true, message: "Lost my job", content: {} },
    ]);
    // Each accepted form wrote one `debtor_request.created`, its data the todo exactly as GET /todos lists it.
    const events = await t.db
      .selectFrom("webhook_events")
      .select(["type", "payload"])
      .where("company_id", "=", companyId)
      .where("payload", "like", `%${debt["id"]}%`)
      .orderBy("id")
      .execute();
    const bodies = events.map((event) => JSON.parse(event.payload as string) as Json);
    for (const [index, body] of bodies.entries()) expectWebhookPayload(body, events[index]!.type);
    const listed = ((await (await json.get("/external-api/v1/todos?limit=100", token)).json()) as Json)["data"] as Json[];
    expect(bodies.map((body) => body["data"])).toEqual(listed.filter((todo) => todo["debt_id"] === debt["id"]).reverse());
    expect(bodies.map((body) => [body["type"], body["data"]["type"], body["data"]["review_status"]])).toEqual([
      ["debtor_request.created", "payment_plan", "suggested"],
      ["debtor_request.created", "portal_dispute", "suggested"],
      ["debtor_request.created", "hardship", "suggested"],
    ]);
    expect(bodies[0]!["data"]["content"]).toEqual({
      currency: "EUR",
      installments: [
        { amount: 83.33, payment_date: "2026-12-01" },
        { amount: 83.33, payment_date: "2027-01-01" },
        { amount: 83.34, payment_date: "2027-02-01" },
      ],
    });

    expect((await b.post(path, { csrf_token: csrf, action: "preferences", quiet_start: "25:00", quiet_end: "08:00" })).status).toBe(400);
    const saved = await b.post(path, { csrf_token: csrf, action: "preferences", refuse_sms: "1", refuse_ai_call: "1", quiet_start: "20:00", quiet_end: "09:00" });
    expect(saved.status).toBe(303);
    const optOuts = await t.db.selectFrom("channel_opt_outs").select(["channel", "source"]).where("company_id", "=", companyId).where("debt_id", "=", debtId).orderBy("channel").execute();
    expect(optOuts).toEqual([{ channel: "ai_call", source: "debtor_page" }, { channel: "sms", source: "debtor_page" }]);
    const quiet = await t.db.selectFrom("debtor_preferences").select(["quiet_start", "quiet_end"]).where("company_id", "=", companyId).where("debt_id", "=", debtId).execute();
    expect(quiet).toEqual([{ quiet_start: "20:00", quiet_end: "09:00" }]);
    const page = await (await b.send(path)).text();
    expect(page).toContain("proposition d’échéancier");
  });
});

/** The company's stored attachments and debtor requests of a debt: what a refused post must leave unchanged. */
const writtenFor = async (debtId: string) => {
  const companyId = api.services.ids.decode("company", tenant.company_id)!;
  const id = api.services.ids.decode("debt", debtId)!;
  const requests = await t.db
    .selectFrom("debtor_requests")
    .select(["id", "type"])
    .where("company_id", "=", companyId)
    .where("debt_id", "=", id)
    .orderBy("id")
    .execute();
  const objects = await t.db
    .selectFrom("stored_objects")
    .select(["debtor_request_id", "file_name", "content_type"])
    .where("company_id", "=", companyId)
    .where("debtor_request_id", "in", [0, ...requests.map((request) => request.id)])
    .orderBy("debtor_request_id")
    .execute();
  return { requests, objects };
};

const bytesOf = (text: string, size = text.length) => {
  const bytes = new Uint8Array(size);
  bytes.set(Buffer.from(text).subarray(0, size));
  return bytes;
};
const PDF = bytesOf("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n");
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
const EXE = bytesOf("MZ\x90\x00\x03\x00\x00\x00This program cannot be run in DOS mode.");
const MiB = 1024 * 1024;

const listTodosOf = async (accessToken: string, debtId: string) => {
  const response = await json.get("/external-api/v1/todos?limit=100", accessToken);
  const body = await expectContract<Json>(response, "get", "/external-api/v1/todos");
  return (body["data"] as Json[]).filter((todo) => todo["debt_id"] === debtId);
};

describe("a dispute's attachment", () => {
  it("stores a PDF with the dispute; its company reads and downloads it, another company never", async () => {
    const debt = await createDebt(token);
    const path = pathOf(debt["payment_link"]);
    const { b, csrf, html } = await signIn(path);
    expect(html).toContain('enctype="multipart/form-data"');
    expect(html).toContain('<input id="attachment" name="attachment" type="file"');
    const sent = await b.postMultipart(
      path,
      { csrf_token: csrf, action: "dispute", reason: "already_paid", message: "Receipt attached" },
      [{ name: "reçu de mai.pdf", type: "application/pdf", bytes: PDF }],
    );
    expect(sent.status, await sent.clone().text()).toBe(303);
    expect(sent.headers.get("location")).toContain("done=dispute");
    const written = await writtenFor(debt["id"]);
    expect(written.requests.map((request) => request.type)).toEqual(["portal_dispute"]);
    expect(written.objects).toEqual([
      { debtor_request_id: written.requests[0]!.id, file_name: "reçu de mai.pdf", content_type: "application/pdf" },
    ]);

    const [todo] = await listTodosOf(token, debt["id"]);
    expect(todo).toMatchObject({
      type: "portal_dispute",
      message: "Receipt attached",
      content: { reason: "already_paid" },
      attachment: { name: "reçu de mai.pdf", content_type: "application/pdf", size: PDF.byteLength },
    });
    const { url } = todo!["attachment"] as Json;
    expect(url).toMatch(new RegExp(`^${api.url}/external-api/v1/media/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.attachment\\?expires=\\d+&signature=`));
    expect(new Date(todo!["attachment"]["url_expires_at"]).getTime()).toBe(
      Math.floor(t.clock.now().getTime() / 1000) * 1000 + 3600_000,
    );
    const download = await fetch(url);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/pdf");
    expect(download.headers.get("content-disposition")).toBe(
      `attachment; filename="re_u de mai.pdf"; filename*=UTF-8''re%C3%A7u%20de%20mai.pdf`,
    );
    expect(download.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Buffer.from(await download.arrayBuffer()).equals(Buffer.from(PDF))).toBe(true);

    // The `debtor_request.created` event names the file, without a link that would expire before a retry.
    const companyId = api.services.ids.decode("company", tenant.company_id)!;
    const [event] = await t.db
      .selectFrom("webhook_events")
      .select(["type", "payload"])
      .where("company_id", "=", companyId)
      .where("payload", "like", `%${todo!["id"]}%`)
      .execute();
    const payload = JSON.parse(event!.payload as string) as Json;
    expectWebhookPayload(payload, event!.type);
    expect(payload["data"]["attachment"]).toEqual({ name: "reçu de mai.pdf", content_type: "application/pdf", size: PDF.byteLength });

    // Another company lists nothing of it, and cannot turn the link into one of its own.
    expect(await listTodosOf(otherToken, debt["id"])).toEqual([]);
    const otherListing = await (await json.get("/external-api/v1/todos?status=all&limit=100", otherToken)).text();
    expect(otherListing).not.toContain(todo!["id"]);
    const parsed = new URL(url);
    const [, owner, kind] = decodeURIComponent(parsed.pathname.split("/").at(-1)!).split(".");
    parsed.pathname = `/external-api/v1/media/${other.company_id}.${owner}.${kind}`;
    const foreign = await fetch(parsed);
    expect(foreign.status).toBe(403);
    expect(await expectContract(foreign, "get", "/external-api/v1/media/{key}")).toEqual({
      error: true,
      code: 403,
      message: "Invalid media signature",
    });
    const altered = new URL(url);
    altered.searchParams.set("signature", `${altered.searchParams.get("signature")!.slice(0, -2)}AA`);
    expect((await fetch(altered)).status).toBe(403);
    // A link signed an hour ago has expired (signing at an earlier instant leaves the shared clock and tokens alone).
    const debtorRequestId = api.services.ids.decode("debtor_request", todo!["id"])!;
    const stale = mediaSigner(api.services.config.idEncryptionKey, api.services.ids).sign(
      api.url,
      { companyId, debtorRequestId, kind: "attachment" },
      new Date(t.clock.now().getTime() - 3600_000),
    );
    const expired = await fetch(stale.url);
    expect(expired.status).toBe(410);
    expect(await expectContract(expired, "get", "/external-api/v1/media/{key}")).toEqual({
      error: true,
      code: 410,
      message: "Media link expired",
    });
    // A fresh read signs a fresh link.
    const [again] = await listTodosOf(token, debt["id"]);
    expect((await fetch(again!["attachment"]["url"])).status).toBe(200);
  });

  it("takes a PNG by its content whatever its declared type, and a dispute without a file has none", async () => {
    const debt = await createDebt(token);
    const path = pathOf(debt["payment_link"]);
    const { b, csrf } = await signIn(path);
    const photo = await b.postMultipart(path, { csrf_token: csrf, action: "dispute", reason: "goods_or_service" }, [
      { name: "photo", type: "application/octet-stream", bytes: PNG },
    ]);
    expect(photo.status, await photo.clone().text()).toBe(303);
    const [todo] = await listTodosOf(token, debt["id"]);
    expect(todo!["attachment"]).toMatchObject({ name: "photo", content_type: "image/png", size: PNG.byteLength });
    const download = await fetch(todo!["attachment"]["url"]);
    expect(download.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await download.arrayBuffer()).equals(Buffer.from(PNG))).toBe(true);

    // A browser posts an empty, nameless file part when no file was chosen.
    const fresh = await createDebt(token);
    const freshPath = pathOf(fresh["payment_link"]);
    const second = await signIn(freshPath);
    const plain = await second.b.postMultipart(freshPath, { csrf_token: second.csrf, action: "dispute", reason: "not_mine" }, [
      { name: "", type: "application/octet-stream", bytes: new Uint8Array(0) },
    ]);
    expect(plain.status, await plain.clone().text()).toBe(303);
    expect((await listTodosOf(token, fresh["id"]))[0]).toMatchObject({ type: "portal_dispute", attachment: null });
    expect((await writtenFor(fresh["id"])).objects).toEqual([]);
  });

  it("refuses a file too large, of another type, or two files, naming the field in the debtor's language; nothing is written", async () => {
    const debt = await createDebt(token);
    const path = pathOf(debt["payment_link"]);
    const { b, csrf } = await signIn(path);
    const dispute = { csrf_token: csrf, action: "dispute", reason: "wrong_amount", message: "The amount is 200" };
    const refused = async (response: Response, status: number, words: string) => {
      expect(response.status).toBe(status);
      const html = await response.text();
      expect(html).toContain(words);
      // The dispute comes back as it was sent, the error beside the file.
      expect(html).toContain('<option value="wrong_amount" selected>');
      expect(html).toContain(">The amount is 200</textarea>");
      expect(html).toContain('aria-invalid="true"');
      expect(response.headers.get("content-security-policy")).toContain("script-src 'none'");
    };

    const justOver = bytesOf("%PDF-1.7\n", 5 * MiB + 1);
    await refused(
      await b.postMultipart(path, dispute, [{ name: "big.pdf", type: "application/pdf", bytes: justOver }]),
      413,
      "Le fichier du champ « Pièce jointe » dépasse 5 Mo.",
    );
    // The largest allowed file is accepted elsewhere below; one far past the post's limit is not read to its end.
    const huge = bytesOf("%PDF-1.7\n", 12 * MiB);
    await refused(
      await b.postMultipart(path, { ...dispute, lang: "en" }, [{ name: "huge.pdf", type: "application/pdf", bytes: huge }]),
      413,
      "The file in “Attachment” is larger than 5 MB.",
    );
    await refused(
      await b.postMultipart(path, { ...dispute, lang: "en" }, [{ name: "invoice.pdf", type: "application/pdf", bytes: EXE }]),
      400,
      "The file in “Attachment” is not a PDF, JPEG or PNG.",
    );
    await refused(
      await b.postMultipart(path, dispute, [
        { name: "one.pdf", type: "application/pdf", bytes: PDF },
        { name: "two.png", type: "image/png", bytes: PNG },
      ]),
      400,
      "Le champ « Pièce jointe » n’accepte qu’un seul fichier.",
    );
    await refused(
      await b.postMultipart(path, { ...dispute, lang: "en" }, [{ name: "one.pdf", type: "application/pdf", bytes: PDF, field: "message_file" }]),
      400,
      "“Attachment” takes one file only.",
    );
    expect(await writtenFor(debt["id"])).toEqual({ requests: [], objects: [] });
    expect(await listTodosOf(token, debt["id"])).toEqual([]);

    // Exactly the limit is accepted.
    const largest = bytesOf("%PDF-1.7\n", 5 * MiB);
    const accepted = await b.postMultipart(path, dispute, [{ name: "largest.pdf", type: "application/pdf", bytes: largest }]);
    expect(accepted.status, await accepted.clone().text()).toBe(303);
    expect((await listTodosOf(token, debt["id"]))[0]!["attachment"]).toMatchObject({ size: 5 * MiB });
  });
});
