/**
 * The debtor page over real HTTP (docs/decisions/0670-0674): links forged
 * or expired, the identity check and its throttling, sessions bound to
 * their debt, anti-forgery tokens, the Stripe-compatible provider faked on
 * a socket (the session request's shape, signed webhooks: forged 403,
 * stale 400, replay recorded once), and the requests the forms record
 * with their `debtor_request.created` events.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { stripeWebhookMessages } from "@dc/contract";
import { debtorLinks } from "@dc/crypto";
import { afterAll, describe, expect, it } from "vitest";
import { stripeSignatureHeader } from "../src/debtor-page/stripe-signature.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { fingerprint } from "./support/isolation/fingerprint.ts";
import { jsonApi } from "./support/json-api.ts";
import { expectWebhookPayload } from "./support/webhooks-support.ts";

const WEBHOOK_SECRET = "whsec_test_secret_value";
const SECRET_KEY = "sk_test_fake_key";

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

/** A browser: a cookie jar over fetch. */
const browser = () => {
  const jar = new Map<string, string>();
  const send = async (path: string, init: RequestInit = {}) => {
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
    const response = await request(path, { ...init, headers: { ...(init.headers as Record<string, string>), cookie } });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return response;
  };
  const post = (path: string, fields: Record<string, string>) =>
    send(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
  return { jar, send, post };
};

const csrfOf = (html: string) => /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? "";
const pathOf = (link: string) => new URL(link).pathname;

const signIn = async (path: string, name = "lefevre dupont", second = "75 011") => {
  const b = browser();
  const page = await b.send(path);
  expect(page.status).toBe(200);
  const verified = await b.post(path, { csrf_token: csrfOf(await page.text()), action: "verify", name, second });
  expect(verified.status, await verified.clone().text()).toBe(303);
  const shown = await b.send(path);
  const html = await shown.text();
  return { b, html, csrf: csrfOf(html) };
};

const paymentsOf = async (debtId: string) => {
  const response = await json.get(`/external-api/v1/debts/${debtId}/payments`, token);
  return ((await response.json()) as Json)["data"] as Json[];
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

    const event = JSON.stringify({
      id: "evt_1",
      type: "checkout.session.completed",
      data: {
        object: {
          id: `cs_test_${stripeRequests.length}`,
          amount_total: 10050,
          currency: "eur",
          payment_status: "paid",
          payment_intent: "pi_123",
          metadata: Object.fromEntries(["company_id", "debt_id"].map((key) => [key, sent.form.get(`metadata[${key}]`)!])),
        },
      },
    });
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const deliver = (signature: string) =>
      request("/payments/stripe/webhook", { method: "POST", headers: { "content-type": "application/json", "stripe-signature": signature }, body: event });
    const webhookAnswer = async (response: Response, status: number, message: string) => {
      expect(response.status).toBe(status);
      expect(await expectContract(response, "post", "/payments/stripe/webhook")).toEqual(
        status >= 400 ? { error: true, message, code: status } : { error: false, message },
      );
    };
    const answers = stripeWebhookMessages;
    await webhookAnswer(await deliver(stripeSignatureHeader("whsec_wrong_secret", event, now)), 403, answers.signatureMismatch);
    await webhookAnswer(await deliver(stripeSignatureHeader(WEBHOOK_SECRET, event, now - 301)), 400, answers.missingSignature);
    await webhookAnswer(await deliver(""), 400, answers.missingSignature);
    expect(await paymentsOf(debt["id"])).toEqual([]);
    await webhookAnswer(await deliver(stripeSignatureHeader(WEBHOOK_SECRET, event, now)), 200, answers.recorded);
    await webhookAnswer(await deliver(stripeSignatureHeader(WEBHOOK_SECRET, event, now + 10)), 200, answers.alreadyRecorded);
    const payments = await paymentsOf(debt["id"]);
    expect(payments).toMatchObject([{ provider: "stripe", external_payment_id: "pi_123", amount: 100.5, status: "succeeded" }]);
    const read = await json.get(`/external-api/v1/debts/${debt["id"]}`, token);
    expect(((await read.json()) as Json)["data"]["remaining_amount"]).toBe(149.5);
    const page = await (await b.send(path)).text();
    expect(page).toContain("149,50");
    expect(page).toContain("100,50");
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
