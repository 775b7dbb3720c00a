import { EMAIL_WEBHOOK_BODY_BYTES, postmarkWebhookMessages } from "@dc/contract";
import { emailTrackingTokens } from "@dc/crypto";
import { markTriggeringFollowups, TRIGGER_WINDOW_HOURS } from "@dc/db";
import { afterAll, describe, expect, it } from "vitest";
import { recordCompletedPayment } from "../src/debtor-page/record-payment.ts";
import { PIXEL } from "../src/email/tracking-routes.ts";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { basicAuthorization, POSTMARK_CREDENTIALS as CREDENTIALS, postmarkHardBounce } from "./support/public-requests.ts";

const t = await startTestApi();
const api = await t.startAnotherApi({ config: { postmarkWebhookCredentials: CREDENTIALS } });
afterAll(() => api.stop());
const { ids, config } = t.api.services;
const tokens = emailTrackingTokens(config.idEncryptionKey);
const forger = emailTrackingTokens(Buffer.alloc(32, 9));
const rows = collectionRows(t.db, ids);
const acme = await t.tenant("Acme Collections");
const acmeId = ids.decode("company", acme.company_id)!;
const debt = await rows.debt(acme, { email: "Jean.Dupont@Example.fr" });

const at = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${api.url}${path}?t=${token}`, { redirect: "manual", ...init });
const person = { "user-agent": "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Version/17.5 Safari/605.1.15" };
const gmailProxy = { "user-agent": "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)" };
const followupRow = (id: number) =>
  t.db.selectFrom("followups").selectAll().where("company_id", "=", acmeId).where("id", "=", id).executeTakeFirstOrThrow();
const readFollowup = async (id: number) => {
  const response = await t.get(`/external-api/v1/followups/${ids.encode("followup", id)}`, await t.token(acme, "followups:read"));
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Record<string, unknown> }).data;
};

describe("the open pixel", () => {
  it("answers the GIF, counts opens and keeps the first open's time", async () => {
    const followup = await rows.followup(acme, debt, { type: "email", status: "sent" });
    const token = tokens.sign("open", { companyId: acmeId, followupId: followup });
    const first = await at("/email/open", token, { headers: person });
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("image/gif");
    expect(first.headers.get("cache-control")).toContain("no-store");
    expect(Buffer.from(await first.arrayBuffer())).toEqual(PIXEL);
    expect(PIXEL.subarray(0, 6).toString("latin1")).toBe("GIF89a");
    const firstAt = t.clock.now();
    t.clock.advance(60_000);
    expect((await at("/email/open", token, { headers: person })).status).toBe(200);
    const data = await readFollowup(followup);
    expect(data).toMatchObject({ email_opened: true, email_open_count: 2 });
    expect(Date.parse(data["email_first_opened_at"] as string)).toBe(firstAt.getTime());
  });

  it("counts a known prefetcher once per followup, people every time", async () => {
    const followup = await rows.followup(acme, debt, { type: "email", status: "sent" });
    const token = tokens.sign("open", { companyId: acmeId, followupId: followup });
    for (let i = 0; i < 3; i++) expect((await at("/email/open", token, { headers: gmailProxy })).status).toBe(200);
    expect((await followupRow(followup)).email_open_count).toBe(1);
    await at("/email/open", token, { headers: person });
    await at("/email/open", token, { method: "HEAD", headers: person });
    expect((await followupRow(followup)).email_open_count).toBe(2);
  });

  it("answers the same image to a forged, altered or missing token and counts nothing", async () => {
    const followup = await rows.followup(acme, debt, { type: "email", status: "sent" });
    const valid = tokens.sign("open", { companyId: acmeId, followupId: followup });
    const altered = `${valid.slice(0, -1)}${valid.endsWith("a") ? "b" : "a"}`;
    for (const token of [forger.sign("open", { companyId: acmeId, followupId: followup }), altered, "", "%00"]) {
      const response = await at("/email/open", token, { headers: person });
      expect(response.status).toBe(200);
      expect(Buffer.from(await response.arrayBuffer())).toEqual(PIXEL);
    }
    expect(await followupRow(followup)).toMatchObject({ email_open_count: 0, email_first_opened_at: null });
  });
});

describe("tracked links", () => {
  const target = "https://pay.example/checkout?invoice=INV-1&amount=120.50#pay";

  it("redirect to the exact target and count clicks", async () => {
    const followup = await rows.followup(acme, debt, { type: "email", status: "sent" });
    const token = tokens.sign("click", { companyId: acmeId, followupId: followup }, target);
    const response = await at("/email/click", token, { headers: person });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(target);
    await at("/email/click", token, { headers: person });
    expect(await readFollowup(followup)).toMatchObject({ email_clicked: true, email_click_count: 2 });
  });

  it("answer 404 and redirect nowhere for a forged or altered token, or a non-http target", async () => {
    const followup = await rows.followup(acme, debt, { type: "email", status: "sent" });
    const email = { companyId: acmeId, followupId: followup };
    const valid = tokens.sign("click", email, target);
    for (const token of [
      forger.sign("click", email, "https://evil.example/"),
      `${valid.slice(0, 10)}${valid.slice(11)}`,
      tokens.sign("open", email),
      tokens.sign("click", email, "javascript:alert(1)"),
      "",
    ]) {
      const response = await at("/email/click", token, { headers: person });
      expect(response.status).toBe(404);
      expect(response.headers.get("location")).toBeNull();
    }
    expect((await followupRow(followup)).email_click_count).toBe(0);
  });

  it("count a link scanner once and keep none of its clicks", async () => {
    const followup = await rows.followup(acme, debt, { type: "email", status: "sent" });
    const token = tokens.sign("click", { companyId: acmeId, followupId: followup }, target);
    for (let i = 0; i < 2; i++) expect((await at("/email/click", token, { headers: { "user-agent": "" } })).status).toBe(302);
    expect((await followupRow(followup)).email_click_count).toBe(1);
    const kept = await t.db.selectFrom("email_clicks").selectAll().where("company_id", "=", acmeId).where("followup_id", "=", followup).execute();
    expect(kept).toEqual([]);
  });
});

describe("unsubscribe", () => {
  it("shows a page that posts, then opts the debt out of e-mail once, by one-click post", async () => {
    const other = await rows.debt(acme, { email: "other@example.fr" });
    const followup = await rows.followup(acme, other, { type: "email", status: "sent" });
    const token = tokens.sign("unsubscribe", { companyId: acmeId, followupId: followup });
    const page = await at("/email/unsubscribe", token);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`<form method="post" action="/email/unsubscribe?t=${token}">`);
    expect(html).not.toContain("<script");
    const optOuts = () => t.db.selectFrom("channel_opt_outs").select(["channel", "source"]).where("company_id", "=", acmeId).where("debt_id", "=", other).execute();
    expect(await optOuts()).toEqual([]);
    for (let i = 0; i < 2; i++) {
      const posted = await at("/email/unsubscribe", token, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "List-Unsubscribe=One-Click",
      });
      expect(posted.status).toBe(200);
    }
    expect(await optOuts()).toEqual([{ channel: "email", source: "unsubscribe" }]);
  });

  it("refuses a forged token with 404 and writes nothing", async () => {
    const other = await rows.debt(acme, { email: "third@example.fr" });
    const followup = await rows.followup(acme, other, { type: "email", status: "sent" });
    const forged = forger.sign("unsubscribe", { companyId: acmeId, followupId: followup });
    expect((await at("/email/unsubscribe", forged)).status).toBe(404);
    expect((await at("/email/unsubscribe", forged, { method: "POST", body: "List-Unsubscribe=One-Click" })).status).toBe(404);
    const rowsWritten = await t.db.selectFrom("channel_opt_outs").selectAll().where("company_id", "=", acmeId).where("debt_id", "=", other).execute();
    expect(rowsWritten).toEqual([]);
  });
});

describe("a token sent twice", () => {
  it("is a bad link: the pixel is served and counts nothing, the links answer their 404 page and change nothing", async () => {
    const other = await rows.debt(acme, { email: "twice@example.fr" });
    const followup = await rows.followup(acme, other, { type: "email", status: "sent" });
    const email = { companyId: acmeId, followupId: followup };
    const twice = (path: string, token: string, init: RequestInit = {}) =>
      fetch(`${api.url}${path}?t=${token}&t=${token}`, { redirect: "manual", ...init, headers: { ...person, ...init.headers } });
    const pixel = await twice("/email/open", tokens.sign("open", email));
    expect(pixel.status).toBe(200);
    expect(Buffer.from(await pixel.arrayBuffer())).toEqual(PIXEL);
    const clickToken = tokens.sign("click", email, "https://pay.example/twice");
    const unsubscribeToken = tokens.sign("unsubscribe", email);
    for (const response of [
      await twice("/email/click", clickToken),
      await twice("/email/unsubscribe", unsubscribeToken),
      await twice("/email/unsubscribe", unsubscribeToken, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "List-Unsubscribe=One-Click",
      }),
    ]) {
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toContain("text/html");
      expect(response.headers.get("location")).toBeNull();
      expect(await response.text()).toContain("Link not found");
    }
    expect(await followupRow(followup)).toMatchObject({ email_open_count: 0, email_click_count: 0, email_first_opened_at: null });
    const optOuts = await t.db.selectFrom("channel_opt_outs").selectAll().where("company_id", "=", acmeId).where("debt_id", "=", other).execute();
    expect(optOuts).toEqual([]);
    // Sent once, the same token is good: what is refused is the repetition.
    expect((await at("/email/click", clickToken, { headers: person })).status).toBe(302);
  });
});

describe("the Postmark bounce webhook", () => {
  const post = (body: unknown, credentials = CREDENTIALS) =>
    fetch(`${api.url}/email/webhooks/postmark`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: basicAuthorization(credentials) },
      body: JSON.stringify(body),
    });
  const hardBounce = (followupId: number, email: string) =>
    postmarkHardBounce(tokens.sign("bounce", { companyId: acmeId, followupId }), email);
  const expectAnswer = async (response: Response, status: number, message: string) => {
    expect(response.status).toBe(status);
    expect(await expectContract(response, "post", "/email/webhooks/postmark")).toEqual(
      status >= 400 ? { error: true, message, code: status } : { error: false, message },
    );
  };
  const undeliverable = () => t.db.selectFrom("email_undeliverable_addresses").selectAll().where("company_id", "=", acmeId).execute();

  it("refuses wrong or missing credentials with 401 and records nothing", async () => {
    const followup = await rows.followup(acme, debt, { type: "email", status: "sent" });
    const response = await post(hardBounce(followup, "Jean.Dupont@Example.fr"), "postmark:wrong-password-0123456789");
    await expectAnswer(response, 401, postmarkWebhookMessages.invalidCredentials);
    expect(response.headers.get("www-authenticate")).toBe('Basic realm="email-webhooks"');
    const anonymous = await fetch(`${api.url}/email/webhooks/postmark`, { method: "POST", body: "{}" });
    await expectAnswer(anonymous, 401, postmarkWebhookMessages.invalidCredentials);
    expect(await undeliverable()).toEqual([]);
    expect((await followupRow(followup)).status).toBe("sent");
  });

  it("ignores a record whose bounce token is forged", async () => {
    const followup = await rows.followup(acme, debt, { type: "email", status: "sent" });
    const record = { ...hardBounce(followup, "Jean.Dupont@Example.fr"), Metadata: { "dc-bounce": forger.sign("bounce", { companyId: acmeId, followupId: followup }) } };
    const response = await post(record);
    await expectAnswer(response, 200, postmarkWebhookMessages.ignored);
    expect(await undeliverable()).toEqual([]);
  });

  it("marks the address undeliverable and fails the sent followup on a hard bounce", async () => {
    const followup = await rows.followup(acme, debt, { type: "email", status: "sent" });
    const response = await post(hardBounce(followup, "Jean.Dupont@Example.fr"));
    await expectAnswer(response, 200, postmarkWebhookMessages.recorded);
    expect(await undeliverable()).toMatchObject([{ address: "jean.dupont@example.fr", kind: "bounce", source: "postmark" }]);
    const row = await followupRow(followup);
    expect(row.status).toBe("failed");
    expect(row.notes).toContain("550 5.1.1");
    expect(await readFollowup(followup)).toMatchObject({ status: "failed" });
  });

  it("answers 400 to a body that is not a JSON object, 413 to one over the limit, in the API's envelope", async () => {
    const before = await undeliverable();
    for (const body of ["[1,2", "[]", '"text"', "null", ""]) {
      const response = await fetch(`${api.url}/email/webhooks/postmark`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: basicAuthorization(CREDENTIALS) },
        body,
      });
      await expectAnswer(response, 400, postmarkWebhookMessages.notObject);
    }
    const tooLarge = await post({ RecordType: "Bounce", Details: "x".repeat(EMAIL_WEBHOOK_BODY_BYTES) });
    expect(tooLarge.status).toBe(413);
    expect(await expectContract(tooLarge, "post", "/email/webhooks/postmark")).toMatchObject({
      error: true,
      message: postmarkWebhookMessages.tooLarge,
      code: 413,
    });
    expect(await undeliverable()).toEqual(before);
  });

  it("answers 404 in the API's envelope where no credentials are configured", async () => {
    const response = await fetch(`${t.api.url}/email/webhooks/postmark`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: basicAuthorization(CREDENTIALS) },
      body: "{}",
    });
    await expectAnswer(response, 404, postmarkWebhookMessages.disabled);
  });
});

describe("triggered_payment", () => {
  const payment = async (debtId: number, paidAt: Date) =>
    (
      await t.db
        .insertInto("payments")
        .values({ company_id: acmeId, debt_id: debtId, provider: "snapshot", kind: "direct", amount_minor: 5000, currency: "EUR", status: "succeeded", paid_at: paidAt })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;

  it(`marks the followup clicked within ${TRIGGER_WINDOW_HOURS} hours before a payment, and not one clicked earlier`, async () => {
    const payer = await rows.debt(acme, { email: "payer@example.fr" });
    const early = await rows.followup(acme, payer, { type: "email", status: "sent" });
    const recent = await rows.followup(acme, payer, { type: "email", status: "sent" });
    const click = (followupId: number) =>
      at("/email/click", tokens.sign("click", { companyId: acmeId, followupId }, "https://pay.example/"), { headers: person });
    expect((await click(early)).status).toBe(302);
    t.clock.advance(TRIGGER_WINDOW_HOURS * 3600_000 - 60_000);
    expect((await click(recent)).status).toBe(302);
    const paid = await payment(payer, new Date(t.clock.now().getTime() + 120_000));
    expect(await markTriggeringFollowups(t.db, acmeId, [paid])).toBe(1);
    expect(await readFollowup(recent)).toMatchObject({ triggered_payment: true });
    expect(await readFollowup(early)).toMatchObject({ triggered_payment: false });
    expect(await markTriggeringFollowups(t.db, acmeId, [paid])).toBe(0);
  });

  it("marks the clicked followup when the debtor then pays on the debtor page", async () => {
    const payer = await rows.debt(acme, { email: "page@example.fr" });
    const followup = await rows.followup(acme, payer, { type: "email", status: "sent" });
    const link = tokens.sign("click", { companyId: acmeId, followupId: followup }, "https://pay.example/");
    expect((await at("/email/click", link, { headers: person })).status).toBe(302);
    t.clock.advance(60_000);
    const recorded = await recordCompletedPayment(t.api.services, t.linkSigner, {
      companyId: acmeId,
      debtId: payer,
      provider: "stripe",
      externalPaymentId: "cs_test_triggered",
      amountMinor: 1_000,
      currency: "EUR",
      paidAt: t.clock.now(),
    });
    expect(recorded).toBe(true);
    expect(await readFollowup(followup)).toMatchObject({ triggered_payment: true });
  });

  it("does not mark a followup clicked after the payment", async () => {
    const payer = await rows.debt(acme, { email: "late@example.fr" });
    const followup = await rows.followup(acme, payer, { type: "email", status: "sent" });
    const paid = await payment(payer, t.clock.now());
    t.clock.advance(1000);
    await at("/email/click", tokens.sign("click", { companyId: acmeId, followupId: followup }, "https://pay.example/"), { headers: person });
    expect(await markTriggeringFollowups(t.db, acmeId, [paid])).toBe(0);
  });
});
