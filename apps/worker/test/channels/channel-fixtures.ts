/**
 * Channel test fixtures: a company (live, or sandbox on its own clock) with
 * one debt, and followups `in_progress` on it: the rows that an adapter's
 * sends, messages and acknowledgements refer to; the live channel adapters
 * on a fake Twilio; Retell's calls and webhooks; and the text of a letter's
 * PDF.
 */
import type { Database } from "@dc/db";
import type { TimelineDefinition } from "@dc/domain";
import { providerSettingsOf, Retell } from "@dc/providers";
import type { CallEnd, FakeRetell } from "@dc/testing";
import type { Kysely } from "kysely";
import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs";
import { expect } from "vitest";
import { type ChannelSettings, makeChannelAdapters } from "../../src/channels/adapters.ts";
import { testIds } from "../snapshot-fixtures.ts";

export interface DebtScope {
  readonly companyId: number;
  readonly debtId: number;
}

/** A company with one creditor and one €10.00 debt; `sandboxNow` makes it a sandbox company. */
export const seedDebt = async (
  db: Kysely<Database>,
  options: { readonly name?: string; readonly sandboxNow?: Date } = {},
): Promise<DebtScope> => {
  const sandbox = options.sandboxNow !== undefined;
  const company = await db
    .insertInto("companies")
    .values({ name: options.name ?? (sandbox ? "Sandbox Co" : "Live Co"), sandbox, sandbox_now: options.sandboxNow ?? null })
    .returning("id")
    .executeTakeFirstOrThrow();
  const creditor = await db
    .insertInto("creditors")
    .values({ company_id: company.id, name: "Acme" })
    .returning("id")
    .executeTakeFirstOrThrow();
  const debt = await db
    .insertInto("debts")
    .values({
      company_id: company.id,
      creditor_id: creditor.id,
      amount_minor: 1_000,
      balance_minor: 1_000,
      currency: "EUR",
      amount_text: "10.00",
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return { companyId: company.id, debtId: debt.id };
};

/** `count` followups `in_progress` on the debt of `scope` (e-mails unless `type` says), as the engine leaves them before a send. */
export const insertSendingFollowups = async (
  db: Kysely<Database>,
  scope: DebtScope,
  count: number,
  options: { readonly sandbox?: boolean; readonly type?: string } = {},
): Promise<ReadonlyArray<number>> => {
  const rows = await db
    .insertInto("followups")
    .values(
      Array.from({ length: count }, () => ({
        company_id: scope.companyId,
        debt_id: scope.debtId,
        type: options.type ?? "email",
        status: "in_progress",
        sandbox: options.sandbox ?? false,
      })),
    )
    .returning("id")
    .execute();
  return rows.map((row) => row.id);
};

/** The PDF's text, whitespace folded (French amounts hold no-break spaces). */
export const pdfText = async (bytes: Uint8Array): Promise<string> => {
  const loading = getDocument({ data: new Uint8Array(bytes), verbosity: 0 });
  const document = await loading.promise;
  const lines: string[] = [];
  for (let number = 1; number <= document.numPages; number++) {
    const content = await (await document.getPage(number)).getTextContent();
    for (const item of content.items) if ("str" in item) lines.push(item.str);
  }
  await loading.destroy();
  return lines.join("\n").replace(/[\u00a0\u202f]/g, " ");
};

/** The senders and callback origin of `twilioChannelAdapters`. */
export const TWILIO_SMS_FROM = "+14155550100";
export const TWILIO_WHATSAPP_FROM = "+14155550111";
export const CALLBACK_ORIGIN = "https://collect.example";

/** A live company's channel adapters with Twilio at `twilio` (a fake's base URL and account); `sleep` takes the backoff waits. */
export const twilioChannelAdapters = (
  db: Kysely<Database>,
  twilio: { readonly baseUrl: string },
  account: { readonly accountSid: string; readonly authToken: string },
  sleep: (ms: number) => Promise<void> = () => Promise.resolve(),
) => fakeProviderAdapters(db, twilioValues(twilio, account), { sleep });

/** The worker's provider variables (`TWILIO_*`, `RETELL_*`, `LOB_*`, `PROVIDER_*`). */
type ProviderValues = Parameters<typeof providerSettingsOf>[0];

/** The Twilio variables of the worker for a fake Twilio and its account. */
export const twilioValues = (
  twilio: { readonly baseUrl: string },
  account: { readonly accountSid: string; readonly authToken: string },
): ProviderValues => ({
  TWILIO_BASE_URL: twilio.baseUrl,
  TWILIO_ACCOUNT_SID: account.accountSid,
  TWILIO_AUTH_TOKEN: account.authToken,
  TWILIO_SMS_FROM,
  TWILIO_WHATSAPP_FROM,
});

/**
 * The worker's channel adapters with the providers `values` configure (the
 * worker's environment variables, pointed at the fakes), no waits between
 * retries unless `sleep` observes them, and no send-rate limit to speak of.
 */
export const fakeProviderAdapters = (
  db: Kysely<Database>,
  values: ProviderValues,
  options: Pick<ChannelSettings, "sleep" | "now" | "publicBaseUrl"> & { readonly smtp?: ChannelSettings["smtp"] } = {},
) =>
  makeChannelAdapters(
    db,
    {
      smtp: options.smtp,
      providers: providerSettingsOf({ PROVIDER_SEND_RATE: 1000, ...values }),
      publicBaseUrl: options.publicBaseUrl ?? CALLBACK_ORIGIN,
      sleep: options.sleep ?? (() => Promise.resolve()),
      ...(options.now === undefined ? {} : { now: options.now }),
    },
    testIds,
  );

/** A timeline step placing an AI call with the agent and voice the fake Retell expects. */
export const aiCallStep = (dayOffset: number, maxAttempts = 1): TimelineDefinition.Step => ({
  day_offset: dayOffset,
  channel: "ai_call",
  configuration: { max_attempts: maxAttempts, agent_id: "agent_collect", voice_id: "11labs-Adrian", max_duration_seconds: 300 },
  content: {},
});

/** An answered, recorded call's end as Retell analyses it: `custom` is its analysis data; `fields` and `analysis` override the rest. */
export const analysedCall = (
  custom: Record<string, unknown>,
  fields: Partial<CallEnd> = {},
  analysis: { readonly call_summary?: string; readonly user_sentiment?: string } = {},
): CallEnd => ({
  disconnection_reason: "user_hangup",
  duration_ms: 95_000,
  recording: true,
  call_analysis: {
    call_summary: "The debtor will pay on Friday.",
    in_voicemail: false,
    user_sentiment: "Neutral",
    ...analysis,
    custom_analysis_data: custom,
  },
  ...fields,
});

/**
 * Retell's webhook `event` of `callId`, its signature checked as the api
 * checks it: its URL, its envelope, and the inbox row the api stores.
 */
export const retellWebhook = async (
  retell: FakeRetell,
  callId: string,
  event: "call_started" | "call_ended" | "call_analyzed",
) => {
  const { url, rawBody, signature } = await retell.webhook(callId, event);
  expect(Retell.verifySignature(retell.apiKey, rawBody, signature, new Date())).toBe(true);
  const payload: unknown = JSON.parse(rawBody);
  const envelope = Retell.webhookEnvelope(payload)!;
  return { url, envelope, received: { eventKey: envelope.eventKey, payload } };
};

/** The company's credits left. */
export const creditsOf = async (db: Kysely<Database>, companyId: number): Promise<number> =>
  (await db.selectFrom("companies").select("current_credits").where("id", "=", companyId).executeTakeFirstOrThrow())
    .current_credits;
