/**
 * Development e-mail end to end: the worker's SMTP adapter sends to the mail
 * capture server that `pnpm start` runs, which keeps each message on disk,
 * and the admin CLI (a separate process) lists and shows them.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Database, repositoryRoot } from "@dc/db";
import { useTestDatabase } from "@dc/testing";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MailCapture, startMailCapture } from "../../../../tooling/scripts/src/mail-capture.ts";
import type { OutboundMessage } from "../../src/channels/channel-adapter.ts";
import { insertSendingFollowups, seedDebt } from "./channel-fixtures.ts";
import { messageIdOf, smtpAdapter } from "../../src/channels/smtp-adapter.ts";

let db: Kysely<Database>;
let directory: string;
let capture: MailCapture;

beforeAll(async () => {
  ({ db } = await useTestDatabase());
  directory = await mkdtemp(join(tmpdir(), "dc-mail-"));
  capture = await startMailCapture({ directory, port: 0 });
});

afterAll(async () => {
  await capture.close();
  await rm(directory, { recursive: true, force: true });
});

const cli = (...args: string[]) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(repositoryRoot(), "apps/api/src/cli/main.ts"), ...args],
      // No database: the mail commands must not need one.
      {
        env: { ...process.env, DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", NODE_ENV: "test" },
        encoding: "utf8",
      },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr }),
    );
  });

const seedMessages = async (recipients: ReadonlyArray<string>): Promise<ReadonlyArray<OutboundMessage>> => {
  const scope = await seedDebt(db);
  const followupIds = await insertSendingFollowups(db, scope, recipients.length);
  return recipients.map((recipient, index) => {
    const followupId = followupIds[index] ?? 0;
    return {
      followupId,
      idempotencyKey: `fu_${followupId}:1`,
      companyId: scope.companyId,
      debtId: scope.debtId,
      channel: "email" as const,
      recipient,
      subject: `Reminder ${index + 1}`,
      body: `Hello <${recipient}>,\n\nYou owe €10.00.`,
      configuration: {},
      at: new Date("2025-03-10T09:30:00.000Z"),
      senderName: "Collect & Co",
    };
  });
};

describe("the development mail capture", () => {
  it("keeps what the SMTP adapter sends, and the CLI lists and shows it", async () => {
    const adapter = smtpAdapter(db, { url: capture.url, from: "Collections <collections@localhost>" });
    const messages = await seedMessages(["jane@debtor.example", "john@other.example"]);
    try {
      // One at a time, so the capture order is known.
      for (const message of messages) expect(await adapter.send([message])).toMatchObject([{ status: "sent" }]);
    } finally {
      adapter.close();
    }

    const listed = await cli("mail", "list", "--dir", directory);
    expect(listed.stderr).toBe("");
    expect(listed.code).toBe(0);
    const all = JSON.parse(listed.stdout) as { data: Array<Record<string, unknown>>; total: number };
    expect(all.total).toBe(2);
    expect(all.data.map((mail) => [mail["subject"], mail["envelope"]])).toEqual([
      ["Reminder 2", { from: "collections@localhost", to: ["john@other.example"] }],
      ["Reminder 1", { from: "collections@localhost", to: ["jane@debtor.example"] }],
    ]);
    expect(all.data[1]).toMatchObject({
      from: '"Collect & Co" <collections@localhost>',
      to: "jane@debtor.example",
      message_id: messageIdOf(messages[0]!.idempotencyKey, "localhost"),
    });

    const filtered = JSON.parse((await cli("mail", "list", "--dir", directory, "--to", "@DEBTOR.example")).stdout) as {
      data: Array<{ id: string; subject: string }>;
      total: number;
    };
    expect(filtered.data.map((mail) => mail.subject)).toEqual(["Reminder 1"]);
    expect(filtered.total).toBe(1);
    expect(
      (JSON.parse((await cli("mail", "list", "--dir", directory, "--limit", "1")).stdout) as { data: unknown[] }).data,
    ).toHaveLength(1);

    const shown = await cli("mail", "show", filtered.data[0]!.id, "--dir", directory);
    expect(shown.code).toBe(0);
    const mail = JSON.parse(shown.stdout) as Record<string, string>;
    expect(mail).toMatchObject({ id: filtered.data[0]!.id, subject: "Reminder 1", date: "2025-03-10T09:30:00.000Z" });
    expect(mail["text"]?.trim()).toBe("Hello <jane@debtor.example>,\n\nYou owe €10.00.");
    expect(mail["html"]).toContain("<p>Hello &lt;jane@debtor.example&gt;,</p>");
    expect(await readFile(mail["eml"]!, "utf8")).toContain("Subject: Reminder 1");
  });

  it("lists nothing before any mail, and refuses an unknown or malformed id", async () => {
    const empty = await mkdtemp(join(tmpdir(), "dc-mail-empty-"));
    try {
      const listed = await cli("mail", "list", "--dir", empty);
      expect(JSON.parse(listed.stdout)).toEqual({ data: [], total: 0, directory: empty });
      const unknown = await cli("mail", "show", "20250310T093000000Z-abcdef", "--dir", empty);
      expect(unknown).toMatchObject({ code: 2, stdout: "" });
      expect(unknown.stderr).toContain("no captured message 20250310T093000000Z-abcdef");
      const traversal = await cli("mail", "show", "../../etc/passwd", "--dir", empty);
      expect(traversal).toMatchObject({ code: 2, stdout: "" });
      expect(traversal.stderr).toContain("not a captured message id");
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
