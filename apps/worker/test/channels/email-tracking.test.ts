import { emailTrackingTokens } from "@dc/crypto";
import { type Database } from "@dc/db";
import { startTestSmtpServer, type TestSmtpServer, useTestDatabase } from "@dc/testing";
import type { Kysely } from "kysely";
import { createTransport } from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BounceReceiver, startBounceReceiver } from "../../src/channels/bounce-receiver.ts";
import type { OutboundMessage } from "../../src/channels/channel-adapter.ts";
import { BOUNCE_METADATA_HEADER, smtpAdapter } from "../../src/channels/smtp-adapter.ts";

const secret = Buffer.alloc(32, 5);
const tokens = emailTrackingTokens(secret);
const tracking = { baseUrl: "https://api.collect.example", secret, bounceAddress: "bounces@bounce.collect.example" };
let db: Kysely<Database>;
let server: TestSmtpServer;
let receiver: BounceReceiver;
let adapter: ReturnType<typeof smtpAdapter>;
let companyId: number;
let debtId: number;

beforeAll(async () => {
  ({ db } = await useTestDatabase());
  server = await startTestSmtpServer();
  adapter = smtpAdapter(db, { url: server.url, from: "Collections <collect@mail.example>", tracking });
  receiver = await startBounceReceiver({ db, secret, bounceAddress: tracking.bounceAddress, port: 0, host: "127.0.0.1", now: () => new Date("2026-03-02T10:00:00Z") });
  companyId = (await db.insertInto("companies").values({ name: "Live Co" }).returning("id").executeTakeFirstOrThrow()).id;
  const creditor = await db.insertInto("creditors").values({ company_id: companyId, name: "Acme" }).returning("id").executeTakeFirstOrThrow();
  debtId = (
    await db
      .insertInto("debts")
      .values({ company_id: companyId, creditor_id: creditor.id, amount_minor: 1_000, balance_minor: 1_000, currency: "EUR", amount_text: "10.00", email: "jane@debtor.example" })
      .returning("id")
      .executeTakeFirstOrThrow()
  ).id;
});

afterAll(async () => {
  adapter.close();
  await Promise.all([server.close(), receiver.close()]);
});

const send = async (recipient: string): Promise<{ followupId: number; mail: TestSmtpServer["received"][number] }> => {
  const followupId = (
    await db.insertInto("followups").values({ company_id: companyId, debt_id: debtId, type: "email", status: "in_progress" }).returning("id").executeTakeFirstOrThrow()
  ).id;
  const message: OutboundMessage = {
    followupId,
    idempotencyKey: `fu_${followupId}:1`,
    companyId,
    debtId,
    channel: "email",
    recipient,
    subject: "Payment reminder",
    body: "Dear Jane,\n\nPay at https://pay.example/d/1?x=1&y=2\n\nKind regards",
    configuration: {},
    at: new Date("2026-03-02T09:00:00Z"),
  };
  const [outcome] = await adapter.send([message]);
  expect(outcome).toMatchObject({ status: "sent" });
  await db.updateTable("followups").set({ status: "sent" }).where("company_id", "=", companyId).where("id", "=", followupId).execute();
  const mail = server.received.find((received) => received.envelope.to.some((to) => to.toLowerCase() === recipient.toLowerCase()) && received.parsed.messageId?.includes(`fu_${followupId}=`));
  if (mail === undefined) throw new Error("not received");
  return { followupId, mail };
};

const tokenOf = (url: string): string => new URL(url).searchParams.get("t") ?? "";

describe("a tracked collection e-mail", () => {
  it("carries the pixel, tracked links, the unsubscribe link and headers, and the bounce token", async () => {
    const { followupId, mail } = await send("jane@debtor.example");
    const email = { companyId, followupId, target: undefined };
    const head = mail.raw.slice(0, mail.raw.search(/\r?\n\r?\n/)).replace(/\r?\n[ \t]+/g, " ");
    const listUnsubscribe = /^<(https:\/\/api\.collect\.example\/email\/unsubscribe\?t=[a-z2-7]+)>$/.exec(
      head.match(/^List-Unsubscribe: (.*)$/im)?.[1]?.trim() ?? "",
    );
    expect(listUnsubscribe).not.toBeNull();
    expect(tokens.verify("unsubscribe", tokenOf(listUnsubscribe![1]!))).toEqual(email);
    expect(head).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m);
    const bounceToken = head.match(new RegExp(`^${BOUNCE_METADATA_HEADER}: ([a-z2-7]+)\\r?$`, "im"))?.[1] ?? "";
    expect(tokens.verify("bounce", bounceToken)).toEqual(email);
    expect(mail.envelope.from).toBe(`bounces+${bounceToken}@bounce.collect.example`);

    const html = String(mail.parsed.html);
    const pixel = /<img src="(https:\/\/api\.collect\.example\/email\/open\?t=[a-z2-7]+)" width="1" height="1"/.exec(html);
    expect(tokens.verify("open", tokenOf(pixel![1]!))).toEqual(email);
    const link = /<a href="(https:\/\/api\.collect\.example\/email\/click\?t=[a-z2-7]+)">https:\/\/pay\.example\/d\/1\?x=1&amp;y=2<\/a>/.exec(html);
    expect(tokens.verify("click", tokenOf(link![1]!))).toEqual({ ...email, target: "https://pay.example/d/1?x=1&y=2" });
    expect(html).toContain(`<a href="${listUnsubscribe![1]!}">Unsubscribe from these e-mails</a>`);
    expect(mail.parsed.text).toContain("Pay at https://pay.example/d/1?x=1&y=2");
    expect(mail.parsed.text).toContain(`Unsubscribe from these e-mails: ${listUnsubscribe![1]!}`);
  });
});

describe("the bounce receiver", () => {
  const deliver = (to: string, raw: string) =>
    createTransport({ host: "127.0.0.1", port: receiver.port, secure: false, ignoreTLS: true }).sendMail({ envelope: { from: "", to: [to] }, raw });

  const dsn = (recipient: string, action: string, status: string) =>
    [
      "From: Mail Delivery System <MAILER-DAEMON@mx.debtor.example>",
      "To: bounces@bounce.collect.example",
      "Subject: Undelivered Mail Returned to Sender",
      "MIME-Version: 1.0",
      'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"',
      "",
      "--b1",
      "Content-Type: text/plain; charset=us-ascii",
      "",
      "Your message could not be delivered.",
      "",
      "--b1",
      "Content-Type: message/delivery-status",
      "",
      "Reporting-MTA: dns; mx.debtor.example",
      "Arrival-Date: Mon, 2 Mar 2026 09:00:05 +0000",
      "",
      `Final-Recipient: rfc822; ${recipient}`,
      `Original-Recipient: rfc822;${recipient}`,
      `Action: ${action}`,
      `Status: ${status}`,
      "Diagnostic-Code: smtp; 550 5.1.1 <jane@debtor.example>: Recipient address",
      "  rejected: User unknown",
      "",
      "--b1",
      "Content-Type: text/rfc822-headers",
      "",
      "Subject: Payment reminder",
      "",
      "--b1--",
      "",
    ].join("\r\n");

  const undeliverable = () => db.selectFrom("email_undeliverable_addresses").selectAll().where("company_id", "=", companyId).execute();

  it("refuses a bounce address without a valid token at RCPT TO", async () => {
    const forged = emailTrackingTokens(Buffer.alloc(32, 6)).sign("bounce", { companyId, followupId: 1 });
    await expect(deliver(`bounces+${forged}@bounce.collect.example`, dsn("jane@debtor.example", "failed", "5.1.1"))).rejects.toMatchObject({ responseCode: 550 });
    await expect(deliver("postmaster@bounce.collect.example", dsn("jane@debtor.example", "failed", "5.1.1"))).rejects.toMatchObject({ responseCode: 550 });
    expect(await undeliverable()).toEqual([]);
  });

  it("changes nothing for a delayed delivery", async () => {
    const { followupId, mail } = await send("Jane@Debtor.example");
    await deliver(mail.envelope.from, dsn("Jane@Debtor.example", "delayed", "4.4.1"));
    expect(await undeliverable()).toEqual([]);
    expect((await db.selectFrom("followups").select("status").where("company_id", "=", companyId).where("id", "=", followupId).executeTakeFirstOrThrow()).status).toBe("sent");
  });

  it("marks the address undeliverable and fails the followup on a DSN's hard bounce", async () => {
    const { followupId, mail } = await send("Jane@Debtor.example");
    await deliver(mail.envelope.from.toUpperCase(), dsn("Jane@Debtor.example", "failed", "5.1.1"));
    expect(await undeliverable()).toMatchObject([{ address: "jane@debtor.example", kind: "bounce", source: "dsn" }]);
    const row = await db.selectFrom("followups").select(["status", "notes"]).where("company_id", "=", companyId).where("id", "=", followupId).executeTakeFirstOrThrow();
    expect(row.status).toBe("failed");
    expect(row.notes).toBe("bounced: 5.1.1 550 5.1.1 <jane@debtor.example>: Recipient address rejected: User unknown");
  });
});
