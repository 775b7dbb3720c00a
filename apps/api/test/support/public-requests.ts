/**
 * Valid requests of the public routes (no bearer token), as each one's
 * caller sends them: the debtor's browser on the debtor page (its cookie
 * jar, the anti-forgery token, the identity check), the payment provider's
 * signed notification, Postmark's bounce record, and the records Retell and
 * Lob sign (their fakes in @dc/testing do the signing). Shared by the
 * routes' own tests and the statement-failure sweep.
 */
import type { Database } from "@dc/db";
import { Retell } from "@dc/providers";
import type { FakeRetell, LobLetter } from "@dc/testing";
import { type Kysely, sql } from "kysely";
import { expect } from "vitest";
import { stripeSignatureHeader } from "../../src/debtor-page/stripe-signature.ts";

/** The settings of a payment provider whose notifications an api verifies (`STRIPE_*`). */
export const STRIPE_WEBHOOK_SECRET = "whsec_test_secret_value";
export const STRIPE_SECRET_KEY = "sk_test_fake_key";

/** `POSTMARK_WEBHOOK_CREDENTIALS` of an api that takes Postmark's webhook. */
export const POSTMARK_CREDENTIALS = "postmark:webhook-password-0123456789";

/** HTTP Basic, as Postmark sends the credentials written into the webhook's URL. */
export const basicAuthorization = (credentials: string): string =>
  `Basic ${Buffer.from(credentials).toString("base64")}`;

/** A Postmark hard-bounce record of the e-mail whose bounce token is `bounceToken`, sent to `email`. */
export const postmarkHardBounce = (bounceToken: string, email: string) => ({
  RecordType: "Bounce",
  ID: 42,
  Type: "HardBounce",
  TypeCode: 1,
  Name: "Hard bounce",
  MessageID: "883953f4-6105-42a2-a16a-77a8eac79483",
  Description: "The server was unable to deliver your message (ex: unknown user, mailbox not found).",
  Details: "smtp;550 5.1.1 The email account that you tried to reach does not exist.",
  Email: email,
  BouncedAt: "2026-03-02T09:00:00Z",
  Inactive: true,
  Metadata: { "dc-bounce": bounceToken },
});

/** A paid `checkout.session.completed` notification, as the provider's JSON text. */
export const checkoutCompleted = (session: {
  readonly id: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly paymentIntent: string;
  readonly metadata: Readonly<Record<string, string>>;
}): string =>
  JSON.stringify({
    id: `evt_${session.id}`,
    type: "checkout.session.completed",
    data: {
      object: {
        id: session.id,
        amount_total: session.amountMinor,
        currency: session.currency.toLowerCase(),
        payment_status: "paid",
        payment_intent: session.paymentIntent,
        metadata: session.metadata,
      },
    },
  });

/** The headers of a provider notification of `body`, signed with `secret` at `at`. */
export const stripeNotificationHeaders = (body: string, at: Date, secret = STRIPE_WEBHOOK_SECRET) => ({
  "content-type": "application/json",
  "stripe-signature": stripeSignatureHeader(secret, body, Math.floor(at.getTime() / 1000)),
});

/** A Lob letter the platform sent for `tenant` (our metadata naming its company), as Lob's events carry it. */
export const lobLetter = (tenant: { company_id: string }, id: string, metadata: Record<string, string> = {}): LobLetter => ({
  id,
  object: "letter",
  description: "test",
  metadata: { dc_company: tenant.company_id, dc_followup: "fu", ...metadata },
  to: { name: "Jane Doe" },
  from: "adr_return01",
  color: false,
  use_type: "operational",
  url: "https://lob.example/ltr.pdf",
  expected_delivery_date: "2030-01-01",
  date_created: "2030-01-01T00:00:00Z",
  deleted: false,
});

/** A call placed through the fake Retell as the worker places it, with `webhookUrl` and our metadata: its id. */
export const placeRetellCall = async (retell: FakeRetell, company: string, webhookUrl: string): Promise<string> => {
  const response = await fetch(`${retell.url}/v2/create-phone-call`, {
    method: "POST",
    headers: { authorization: `Bearer ${retell.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({
      from_number: "+14155550100",
      to_number: "+33612345678",
      agent_override: { agent: { webhook_url: webhookUrl } },
      metadata: { company_id: company, followup_id: "fu", idempotency_key: "fu:1" },
    }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { call_id: string }).call_id;
};

/** The URL of `company`'s Retell webhook on the api at `apiUrl`. */
export const retellWebhookUrl = (apiUrl: string, company: string): string => `${apiUrl}${Retell.webhookPath(company)}`;

export type Send = (path: string, init?: RequestInit) => Promise<Response>;

/** A browser on the debtor page: a cookie jar over `request`. */
export const debtorBrowser = (request: Send) => {
  const jar = new Map<string, string>();
  const cookie = () => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
  const send = async (path: string, init: RequestInit = {}) => {
    const response = await request(path, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), cookie: cookie() },
    });
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
  /** Posts as a browser posts a form with a file input: multipart, each file a named part. */
  const postMultipart = (path: string, fields: Record<string, string>, files: ReadonlyArray<Upload> = []) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    for (const file of files) form.append(file.field ?? "attachment", new Blob([file.bytes], { type: file.type }), file.name);
    return send(path, { method: "POST", body: form });
  };
  return { jar, cookie, send, post, postMultipart };
};

/** A file a debtor attaches to a form; `field` defaults to the dispute's `attachment`. */
export interface Upload {
  readonly name: string;
  readonly type: string;
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly field?: string;
}

/** The anti-forgery token of a debtor page's forms. */
export const csrfOf = (html: string): string => /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? "";

/**
 * A browser that passed the identity check of the debtor page at `path`
 * (the page's link path), with the debt's page as it then shows it and the
 * forms' anti-forgery token.
 */
export const signInOnDebtorPage = async (request: Send, path: string, name: string, second = "") => {
  const b = debtorBrowser(request);
  const page = await b.send(path);
  expect(page.status).toBe(200);
  const verified = await b.post(path, { csrf_token: csrfOf(await page.text()), action: "verify", name, second });
  expect(verified.status, await verified.clone().text()).toBe(303);
  const shown = await b.send(path);
  const html = await shown.text();
  return { b, html, csrf: csrfOf(html) };
};

/** What a company's provider callbacks left: its stored provider events in order, and its processing jobs. */
export const providerInbox = (db: Kysely<Database>, companyKey: number) => ({
  stored: async () =>
    (
      await sql<{ provider: string; event_key: string; payload: unknown }>`
        select provider, event_key, payload from provider_events where company_id = ${companyKey} order by id`.execute(db)
    ).rows,
  jobs: async () =>
    Number(
      (
        await sql<{ count: string }>`select count(*) from graphile_worker.jobs
          where task_identifier = 'process_provider_events' and key = ${`provider-events:${companyKey}`}`.execute(db)
      ).rows[0]?.count,
    ),
});
