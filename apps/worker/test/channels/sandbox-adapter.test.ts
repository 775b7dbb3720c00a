import { type Database } from "@dc/db";
import type { TimelineDefinition } from "@dc/domain";
import { useTestDatabase } from "@dc/testing";
import type { Kysely } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import type { OutboundMessage } from "../../src/channels/channel-adapter.ts";
import { sandboxAdapter } from "../../src/channels/sandbox-adapter.ts";
import { insertSendingFollowups, seedDebt } from "./channel-fixtures.ts";

let db: Kysely<Database>;
beforeAll(async () => {
  ({ db } = await useTestDatabase());
});

const at = new Date("2025-03-10T09:30:00.000Z");

/** A sandbox company with one debt and one engine followup per message to send. */
const seed = async (count: number) => {
  const scope = await seedDebt(db, { sandboxNow: at });
  return { ...scope, followupIds: await insertSendingFollowups(db, scope, count, { sandbox: true }) };
};

const message = (
  scope: { companyId: number; debtId: number },
  followupId: number,
  channel: TimelineDefinition.Channel,
  recipient: string,
): OutboundMessage => ({
  followupId,
  idempotencyKey: `fu_${followupId}:1`,
  companyId: scope.companyId,
  debtId: scope.debtId,
  channel,
  recipient,
  subject: channel === "email" ? "Reminder" : null,
  body: `Body for ${recipient}`,
  configuration: {},
  at,
});

const stored = (companyId: number) =>
  db.selectFrom("sandbox_messages").selectAll().where("company_id", "=", companyId).orderBy("id").execute();

describe("the sandbox adapter", () => {
  it("answers the outcome each magic value chooses, in order, and records every message in one batch", async () => {
    const cases: ReadonlyArray<[TimelineDefinition.Channel, string, object]> = [
      ["email", "jane@example.com", { status: "delivered" }],
      ["email", "jane+sent@example.com", { status: "sent" }],
      ["email", "Jane+Bounce@example.com", { status: "failed", retryable: false }],
      ["email", "jane+deferred@example.com", { status: "failed", retryable: true }],
      [
        "ai_call",
        "+33 6 12 34 00 01",
        {
          status: "deal_found",
          conversation: true,
          durationMs: 95_000,
          promiseUntil: new Date("2025-03-17T09:30:00.000Z"),
        },
      ],
      ["ai_call", "+33612340002", { status: "no_answer", conversation: false }],
      ["ai_call", "+33612340003", { status: "no_answer", conversation: false, voicemail: true }],
      ["manual_call", "+33612340004", { status: "deal_not_found", conversation: true }],
      ["ai_call", "+33612340005", { status: "bad_behavior", conversation: true }],
      ["ai_call", "+33612340008", { status: "failed", retryable: false }],
      ["ai_call", "+33612340009", { status: "failed", retryable: true }],
      ["ai_call", "+33612345678", { status: "no_answer", conversation: false }],
      ["sms", "+33612340001", { status: "delivered" }],
      ["sms", "+33612340006", { status: "sent" }],
      ["whatsapp", "+33612340009", { status: "failed", retryable: true }],
      ["voicemail", "+33612340008", { status: "failed", retryable: false }],
      ["postmail", "1 rue de la Paix, 75002 Paris, France", { status: "sent" }],
      ["postmail", "UNDELIVERABLE 1 Nowhere Street", { status: "failed", retryable: false }],
      ["sms", "", { status: "failed", retryable: false }],
    ];
    const scope = await seed(cases.length);
    const messages = cases.map(([channel, recipient], index) =>
      message(scope, scope.followupIds[index]!, channel, recipient),
    );

    const outcomes = await sandboxAdapter(db).send(messages);

    expect(outcomes).toHaveLength(cases.length);
    cases.forEach(([, , expected], index) => expect(outcomes[index]).toMatchObject(expected));
    expect(outcomes[0]).toEqual({ status: "delivered", providerMessageId: `sandbox:fu_${scope.followupIds[0]}:1` });
    const rows = await stored(scope.companyId);
    expect(rows.map((row) => [row.followup_id, row.idempotency_key, row.channel, row.recipient, row.outcome])).toEqual(
      cases.map(([channel, recipient], index) => [
        scope.followupIds[index],
        `fu_${scope.followupIds[index]}:1`,
        channel,
        recipient,
        outcomes[index]!.status,
      ]),
    );
    expect(rows[0]).toMatchObject({
      debt_id: scope.debtId,
      subject: "Reminder",
      body: "Body for jane@example.com",
      sent_at: at,
    });
  });

  it("records a second send of the same idempotency key nothing more, and answers what was recorded", async () => {
    const scope = await seed(2);
    const adapter = sandboxAdapter(db);
    const first = message(scope, scope.followupIds[0]!, "ai_call", "+33612340001");
    await adapter.send([first]);
    // The same attempt sent again, its debt's phone changed meanwhile, in a batch with a new message.
    const again = { ...first, recipient: "+33612340004", at: new Date("2025-03-11T09:30:00.000Z") };
    const other = message(scope, scope.followupIds[1]!, "sms", "+33612349999");
    const outcomes = await adapter.send([again, other]);

    expect(outcomes).toEqual([
      expect.objectContaining({ status: "deal_found", promiseUntil: new Date("2025-03-17T09:30:00.000Z") }),
      { status: "delivered", providerMessageId: `sandbox:fu_${scope.followupIds[1]}:1` },
    ]);
    const rows = await stored(scope.companyId);
    expect(rows.map((row) => [row.idempotency_key, row.recipient])).toEqual([
      [first.idempotencyKey, "+33612340001"],
      [other.idempotencyKey, "+33612349999"],
    ]);
  });

  it("stores two sends racing on one key once", async () => {
    const scope = await seed(1);
    const adapter = sandboxAdapter(db);
    const one = message(scope, scope.followupIds[0]!, "email", "race@example.com");
    const outcomes = await Promise.all([adapter.send([one]), adapter.send([one]), adapter.send([one, one])]);
    expect(outcomes.flat().map((outcome) => outcome.status)).toEqual([
      "delivered",
      "delivered",
      "delivered",
      "delivered",
    ]);
    expect(await stored(scope.companyId)).toHaveLength(1);
  });

  it("looks up what it received: the same outcome after a crash, null for a message it never got", async () => {
    const scope = await seed(2);
    const adapter = sandboxAdapter(db);
    const sent = message(scope, scope.followupIds[0]!, "ai_call", "+33612340001");
    const [outcome] = await adapter.send([sent]);
    expect(await adapter.lookup(sent)).toEqual(outcome);
    expect(await adapter.lookup(message(scope, scope.followupIds[1]!, "ai_call", "+33612340001"))).toBeNull();
    // Keys are per company: another company's identical key is another message.
    const elsewhere = await seed(1);
    expect(await adapter.lookup({ ...sent, companyId: elsewhere.companyId })).toBeNull();
  });

  it("sends nothing for an empty batch", async () => {
    expect(await sandboxAdapter(db).send([])).toEqual([]);
  });
});
