import { type Database } from "@dc/db";
import { freePort, startTestSmtpServer, type TestSmtpServer, useTestDatabase } from "@dc/testing";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OutboundMessage } from "../../src/channels/channel-adapter.ts";
import { messageIdOf, smtpAdapter, UNACKNOWLEDGED } from "../../src/channels/smtp-adapter.ts";
import { type DebtScope, insertSendingFollowups, seedDebt } from "./channel-fixtures.ts";

let db: Kysely<Database>;
let server: TestSmtpServer;
let adapter: ReturnType<typeof smtpAdapter>;
let scope: DebtScope;
let nextFollowup: () => Promise<number>;

const from = "Collections <collect@mail.example>";

beforeAll(async () => {
  ({ db } = await useTestDatabase());
  server = await startTestSmtpServer();
  adapter = smtpAdapter(db, { url: server.url, from });
  scope = await seedDebt(db);
  nextFollowup = async () => (await insertSendingFollowups(db, scope, 1))[0] ?? 0;
});

afterAll(async () => {
  adapter.close();
  await server.close();
});

const at = new Date("2025-03-10T09:30:00.000Z");

const message = async (recipient: string, overrides: Partial<OutboundMessage> = {}): Promise<OutboundMessage> => {
  const followupId = await nextFollowup();
  return {
    followupId,
    idempotencyKey: `fu_${followupId}:1`,
    companyId: scope.companyId,
    debtId: scope.debtId,
    channel: "email",
    recipient,
    subject: "Payment reminder: €12.00 owed to Acme",
    body: "Dear Jane,\n\nYou owe €12.00.\nPay at https://pay.example/d/1\n\nKind regards,\nCollect & Co",
    configuration: {},
    at,
    ...overrides,
  };
};

const receivedBy = (address: string) => server.received.filter((mail) => mail.envelope.to.includes(address));

const acknowledgement = (key: string) =>
  db
    .selectFrom("provider_acknowledgements")
    .selectAll()
    .where("company_id", "=", scope.companyId)
    .where("idempotency_key", "=", key)
    .executeTakeFirst();

describe("the SMTP adapter", () => {
  it("delivers one message to its recipient with its headers, a text part and an escaped HTML part", async () => {
    const sent = await message("jane@debtor.example", {
      senderName: "Collect & Co",
      language: "fr",
      body: "Bonjour <b>Jane</b> & co,\n\nPayez sur https://pay.example/d/1",
    });
    const [outcome] = await adapter.send([sent]);

    const messageId = messageIdOf(sent.idempotencyKey, "mail.example");
    expect(outcome).toEqual({ status: "sent", providerMessageId: messageId });
    const [mail] = receivedBy("jane@debtor.example");
    expect(mail!.envelope).toEqual({ from: "collect@mail.example", to: ["jane@debtor.example"] });
    expect(mail!.parsed.from?.value).toEqual([{ name: "Collect & Co", address: "collect@mail.example" }]);
    expect(mail!.parsed.to).toMatchObject({ value: [{ address: "jane@debtor.example" }] });
    expect(mail!.parsed.subject).toBe("Payment reminder: €12.00 owed to Acme");
    expect(mail!.parsed.messageId).toBe(messageId);
    expect(mail!.parsed.date).toEqual(at);
    expect(mail!.parsed.text?.trim()).toBe("Bonjour <b>Jane</b> & co,\n\nPayez sur https://pay.example/d/1");
    expect(mail!.parsed.html).toContain('<html lang="fr">');
    expect(mail!.parsed.html).toContain("<p>Bonjour &lt;b&gt;Jane&lt;/b&gt; &amp; co,</p>");
    expect(mail!.parsed.html).toContain(
      '<p>Payez sur <a href="https://pay.example/d/1">https://pay.example/d/1</a></p>',
    );
    expect(mail!.parsed.html).not.toContain("<b>");

    expect(await acknowledgement(sent.idempotencyKey)).toMatchObject({
      followup_id: sent.followupId,
      channel: "email",
      provider_message_id: messageId,
      response: expect.stringMatching(/^250 /),
    });
    expect(await adapter.lookup(sent)).toEqual({ status: "sent", providerMessageId: messageId });
  });

  it("uses MAIL_FROM's name without a sender name", async () => {
    await adapter.send([await message("plain@debtor.example")]);
    expect(receivedBy("plain@debtor.example")[0]!.parsed.from?.value).toEqual([
      { name: "Collections", address: "collect@mail.example" },
    ]);
  });

  it("answers each message of a batch in order: a 5xx fails for good, a 4xx is retryable, the others are sent", async () => {
    server.refuse("unknown@debtor.example", { at: "rcpt", code: 550, message: "5.1.1 No such user" });
    server.refuse("full@debtor.example", { at: "rcpt", code: 452, message: "4.2.2 Mailbox full" });
    server.refuse("spam@debtor.example", { at: "data", code: 554, message: "5.7.1 Rejected as spam" });
    server.refuse("later@debtor.example", { at: "data", code: 451, message: "4.3.0 Try again later" });
    const batch = await Promise.all(
      [
        "a@debtor.example",
        "unknown@debtor.example",
        "full@debtor.example",
        "spam@debtor.example",
        "later@debtor.example",
        "b@debtor.example",
      ].map((recipient) => message(recipient)),
    );
    const outcomes = await adapter.send(batch);

    expect(outcomes).toEqual([
      { status: "sent", providerMessageId: messageIdOf(batch[0]!.idempotencyKey, "mail.example") },
      { status: "failed", retryable: false, error: expect.stringMatching(/^smtp 550: .*No such user/) },
      { status: "failed", retryable: true, error: expect.stringMatching(/^smtp 452: .*Mailbox full/) },
      { status: "failed", retryable: false, error: expect.stringMatching(/^smtp 554: .*Rejected as spam/) },
      { status: "failed", retryable: true, error: expect.stringMatching(/^smtp 451: .*Try again later/) },
      { status: "sent", providerMessageId: messageIdOf(batch[5]!.idempotencyKey, "mail.example") },
    ]);
    expect(receivedBy("a@debtor.example")).toHaveLength(1);
    expect(receivedBy("b@debtor.example")).toHaveLength(1);
    for (const refused of ["unknown", "full", "spam", "later"])
      expect(receivedBy(`${refused}@debtor.example`)).toEqual([]);
    // Only acknowledged sends are recorded.
    expect(await acknowledgement(batch[0]!.idempotencyKey)).toBeDefined();
    expect(await acknowledgement(batch[1]!.idempotencyKey)).toBeUndefined();
    expect(await acknowledgement(batch[4]!.idempotencyKey)).toBeUndefined();
  });

  it("fails retryably when the server refuses the connection", async () => {
    const closed = smtpAdapter(db, { url: `smtp://127.0.0.1:${await freePort()}`, from });
    try {
      const [outcome] = await closed.send([await message("nobody@debtor.example")]);
      expect(outcome).toEqual({
        status: "failed",
        retryable: true,
        error: expect.stringMatching(/^smtp (ECONNECTION|ESOCKET): /),
      });
    } finally {
      closed.close();
    }
  });

  it("refuses a recipient that is not exactly one address, sending nothing", async () => {
    const before = server.received.length;
    const outcomes = await adapter.send([
      await message("a@debtor.example, b@debtor.example"),
      await message("Jane <jane@debtor.example>"),
      await message("x@debtor.example\r\nBcc: y@debtor.example"),
    ]);
    expect(outcomes.map((outcome) => outcome.status === "failed" && !outcome.retryable)).toEqual([true, true, true]);
    expect(server.received.length).toBe(before);
  });

  it("reconciles an attempt without a recorded acknowledgement as failed, never to be resent", async () => {
    expect(await adapter.lookup(await message("crashed@debtor.example"))).toEqual({
      status: "failed",
      retryable: false,
      error: UNACKNOWLEDGED,
    });
  });

  it("derives one Message-ID per idempotency key", () => {
    expect(messageIdOf("fu_AbC-9_x:1", "mail.example")).toBe("<fu_AbC-9_x=3a1@mail.example>");
    expect(messageIdOf("fu_a:2", "d.example")).not.toBe(messageIdOf("fu_a:1", "d.example"));
    expect(messageIdOf("fu.a:1", "d.example")).not.toBe(messageIdOf("fu=2ea:1", "d.example"));
  });
});
