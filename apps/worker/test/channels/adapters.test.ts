import { type Database } from "@dc/db";
import { startTestSmtpServer, type TestSmtpServer, useTestDatabase } from "@dc/testing";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHANNEL_NOT_CONFIGURED, makeChannelAdapters } from "../../src/channels/adapters.ts";
import type { OutboundMessage } from "../../src/channels/channel-adapter.ts";
import { insertSendingFollowups, seedDebt } from "./channel-fixtures.ts";

let db: Kysely<Database>;
let server: TestSmtpServer;
beforeAll(async () => {
  ({ db } = await useTestDatabase());
  server = await startTestSmtpServer();
});
afterAll(() => server.close());

const seed = async (sandbox: boolean) => {
  const scope = await seedDebt(db, sandbox ? { name: "Co", sandboxNow: new Date() } : { name: "Co" });
  const [followupId = 0] = await insertSendingFollowups(db, scope, 1, { sandbox });
  return { ...scope, followupId };
};

const message = (
  scope: { companyId: number; debtId: number; followupId: number },
  channel: OutboundMessage["channel"],
  recipient: string,
): OutboundMessage => ({
  followupId: scope.followupId,
  idempotencyKey: `fu_${scope.followupId}:1`,
  companyId: scope.companyId,
  debtId: scope.debtId,
  channel,
  recipient,
  subject: channel === "email" ? "Hello" : null,
  body: "Body",
  configuration: {},
  at: new Date("2025-03-10T09:30:00.000Z"),
});

describe("adapterFor", () => {
  it("sends every channel of a sandbox company to the sandbox, never to the SMTP server", async () => {
    const adapters = makeChannelAdapters(db, { smtp: { url: server.url, from: "collect@mail.example" } });
    try {
      const scope = await seed(true);
      const [outcome] = await adapters
        .adapterFor({ sandbox: true }, "email")
        .send([message(scope, "email", "sandbox@debtor.example")]);
      expect(outcome).toMatchObject({ status: "delivered" });
      expect(
        await db.selectFrom("sandbox_messages").select("recipient").where("company_id", "=", scope.companyId).execute(),
      ).toEqual([{ recipient: "sandbox@debtor.example" }]);
      expect(server.received.filter((mail) => mail.envelope.to.includes("sandbox@debtor.example"))).toEqual([]);
      expect(adapters.adapterFor({ sandbox: true }, "ai_call")).toBe(adapters.adapterFor({ sandbox: true }, "email"));
    } finally {
      await adapters.close?.();
    }
  });

  it("sends a live company's e-mail over SMTP", async () => {
    const adapters = makeChannelAdapters(db, { smtp: { url: server.url, from: "collect@mail.example" } });
    try {
      const scope = await seed(false);
      const [outcome] = await adapters
        .adapterFor({ sandbox: false }, "email")
        .send([message(scope, "email", "live@debtor.example")]);
      expect(outcome).toMatchObject({ status: "sent" });
      expect(server.received.filter((mail) => mail.envelope.to.includes("live@debtor.example"))).toHaveLength(1);
      expect(
        await db.selectFrom("sandbox_messages").select("id").where("company_id", "=", scope.companyId).execute(),
      ).toEqual([]);
    } finally {
      await adapters.close?.();
    }
  });

  it("fails a live company's other channels, and its e-mail without SMTP_URL, with channel_not_configured", async () => {
    const scope = await seed(false);
    const withSmtp = makeChannelAdapters(db, { smtp: { url: server.url, from: "collect@mail.example" } });
    const withoutSmtp = makeChannelAdapters(db, { smtp: undefined });
    try {
      for (const channel of ["sms", "whatsapp", "ai_call", "voicemail", "manual_call", "postmail"] as const) {
        const sms = message(scope, channel, "+33612345678");
        const [outcome] = await withSmtp.adapterFor({ sandbox: false }, channel).send([sms]);
        expect(outcome).toEqual({
          status: "failed",
          retryable: false,
          error:
            channel === "postmail"
              ? `${CHANNEL_NOT_CONFIGURED}: LOB_API_KEY and LOB_FROM_ADDRESS are not set, so live companies cannot send letters`
              : expect.stringMatching(
                  new RegExp(
                    channel === "sms" || channel === "whatsapp"
                      ? `^${CHANNEL_NOT_CONFIGURED}: TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and PUBLIC_BASE_URL are not all set`
                      : `^${CHANNEL_NOT_CONFIGURED}: live ${channel} steps`,
                  ),
                ),
        });
        expect(await withSmtp.adapterFor({ sandbox: false }, channel).lookup(sms)).toEqual(outcome);
      }
      const [email] = await withoutSmtp
        .adapterFor({ sandbox: false }, "email")
        .send([message(scope, "email", "nosmtp@debtor.example")]);
      expect(email).toEqual({
        status: "failed",
        retryable: false,
        error: `${CHANNEL_NOT_CONFIGURED}: SMTP_URL is not set, so live companies cannot send e-mail`,
      });
      expect(
        await db.selectFrom("sandbox_messages").select("id").where("company_id", "=", scope.companyId).execute(),
      ).toEqual([]);
    } finally {
      await withSmtp.close?.();
      await withoutSmtp.close?.();
    }
  });
});
