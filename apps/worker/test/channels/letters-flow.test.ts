/**
 * A live company's letters end to end: the engine sends a postmail step
 * through the Lob adapter (to the fake Lob), the followup is `sent` with
 * the letter id and its stored PDF, and Lob's webhook events, stored as
 * the api stores them, move it on when the worker applies them.
 */
import { debtorLinks } from "@dc/crypto";
import { type Database, findStoredObject, storeProviderEvents } from "@dc/db";
import { Lob, providerSettingsOf } from "@dc/providers";
import { type FakeLob, type LobLetter, startFakeLob, useTestDatabase } from "@dc/testing";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeChannelAdapters } from "../../src/channels/adapters.ts";
import { sweepLive } from "../../src/engine/live-sweep.ts";
import { applyProviderEvents } from "../../src/provider-events/apply-provider-events.ts";
import {
  createEngineTenant,
  engineDependencies,
  enrolledDebts,
  type EngineTenant,
  tuesdayMorning,
} from "../engine/engine-fixtures.ts";
import { testIds, testLinks } from "../snapshot-fixtures.ts";
import { pdfText } from "./channel-fixtures.ts";

const API_KEY = "test_lob_key_0123456789";
const SECRET = "lob_webhook_secret_for_tests";

let db: Kysely<Database>;
let lob: FakeLob;
let tenant: EngineTenant;
/** A letter step of two attempts, the second an hour after a retryable failure: a second letter would show. */
let twoAttempts: EngineTenant;
let dependencies: ReturnType<typeof engineDependencies>;
let complete: number;
let incomplete: number;

/** The letter attempts of a debt of `on`, in order. */
const lettersOf = (debtId: number, on = tenant) =>
  db
    .selectFrom("followups")
    .select(["id", "status", "type", "attempt", "provider_message_id", "pdf_object_key", "notes"])
    .where("company_id", "=", on.companyId)
    .where("debt_id", "=", debtId)
    .where("type", "=", "postmail")
    .orderBy("id")
    .execute();
const followupOf = async (debtId: number) => (await lettersOf(debtId))[0]!;

/** A debt of `on` with a complete address, enrolled at the engine's clock. */
const addressedDebt = async (on: EngineTenant): Promise<number> => {
  const [debt] = await enrolledDebts(db, on, [{}], dependencies.clock.now());
  await db
    .updateTable("debts")
    .set({ address: "5 avenue Foch", postal_code: "75016", city: "Paris" })
    .where("company_id", "=", on.companyId)
    .where("id", "=", debt!)
    .execute();
  return debt!;
};

/** The letters Lob made for a debt's followups. */
const lobLettersFor = (followups: ReadonlyArray<{ id: number }>) => {
  const ours = new Set(followups.map((row) => testIds.encode("followup", row.id)));
  return [...lob.letters.values()].filter((letter) => ours.has(letter.metadata["dc_followup"]!));
};

/** Stores Lob's event for `letter` as the api does, then has the worker apply the company's events. */
const deliver = async (letter: LobLetter, type: string, id?: string) => {
  const event = lob.event(letter, type, SECRET, id === undefined ? {} : { id });
  const received = Lob.receivedCallback(JSON.parse(event.body));
  const { stored } = await storeProviderEvents(db, tenant.companyId, "lob", received === undefined ? [] : [received]);
  await applyProviderEvents(dependencies, tenant.companyId);
  return { stored, eventId: (JSON.parse(event.body) as { id: string }).id };
};

beforeAll(async () => {
  ({ db } = await useTestDatabase());
  lob = await startFakeLob({ apiKey: API_KEY });
  tenant = await createEngineTenant(db, {
    definition: {
      scheduling: { time_zone: "Europe/Paris", weekdays: [1, 2, 3, 4, 5], window: { start: "09:00", end: "19:00" } },
      steps: [{ day_offset: 0, channel: "postmail", configuration: {}, content: {} }],
    },
  });
  twoAttempts = await createEngineTenant(db, {
    definition: {
      scheduling: { time_zone: "Europe/Paris", weekdays: [1, 2, 3, 4, 5], window: { start: "09:00", end: "19:00" } },
      steps: [{ day_offset: 0, channel: "postmail", configuration: { max_attempts: 2, retry_after_hours: 1 }, content: {} }],
    },
  });
  const debts = await enrolledDebts(db, tenant, [{}, {}], tuesdayMorning);
  complete = debts[0]!;
  incomplete = debts[1]!;
  await db
    .updateTable("debts")
    .set({ street_number: "12", street_address: "rue de la Paix", postal_code: "75002", city: "Paris" })
    .where("company_id", "=", tenant.companyId)
    .where("id", "=", complete)
    .execute();
  await db
    .updateTable("debts")
    .set({ address: "3 place du Marché", city: "Lyon", country: null })
    .where("company_id", "=", tenant.companyId)
    .where("id", "=", incomplete)
    .execute();
  const providers = providerSettingsOf({
    LOB_API_KEY: API_KEY,
    LOB_BASE_URL: lob.url,
    LOB_WEBHOOK_SECRET: SECRET,
    LOB_FROM_ADDRESS: "adr_return01",
  });
  dependencies = {
    ...engineDependencies(db, tuesdayMorning),
    // The providers' backoff is not slept through: outages are played at once.
    adapters: makeChannelAdapters(db, { smtp: undefined, providers, sleep: () => Promise.resolve() }, testIds),
  };
  await sweepLive(dependencies);
});

afterAll(async () => {
  await lob.close();
});

describe("a live company's letter", () => {
  it("is sent through Lob with its PDF stored, and a debt without a complete address fails for good", async () => {
    const sent = await followupOf(complete);
    expect(sent.status).toBe("sent");
    expect(sent.provider_message_id).toMatch(/^ltr_/);
    const letter = lob.letters.get(sent.provider_message_id!)!;
    expect(letter.to).toMatchObject({
      address_line1: "12 rue de la Paix",
      address_zip: "75002",
      address_city: "Paris",
      address_country: "FR",
    });
    expect(letter.metadata["dc_followup"]).toBe(testIds.encode("followup", sent.id));
    expect(sent.pdf_object_key).toMatch(/^letters\/.+:1\.pdf$/);
    const stored = await findStoredObject(db, tenant.companyId, sent.pdf_object_key!);
    expect(Buffer.from(stored!.body).subarray(0, 5).toString()).toBe("%PDF-");
    // The debt has no company-set link: the letter gives the debtor page's, as the e-mails and texts do.
    const link = debtorLinks(testLinks.secret).url(testLinks.origin, { companyId: tenant.companyId, debtId: complete }, tuesdayMorning);
    expect((await pdfText(stored!.body)).replace(/\s+/g, "")).toContain(`Payerenligne:${link}`);

    const failed = await followupOf(incomplete);
    expect(failed).toMatchObject({
      status: "failed",
      provider_message_id: null,
      pdf_object_key: null,
      notes: "incomplete_postal_address: missing postal code, country",
    });
    expect(lob.requests).toHaveLength(1);
  });

  it("moves on with Lob's events: tracking steps keep it sent, delivery makes it delivered, nothing moves it back", async () => {
    const { id, provider_message_id } = await followupOf(complete);
    const letter = lob.letters.get(provider_message_id!)!;
    await deliver(letter, "letter.in_transit");
    expect((await followupOf(complete)).status).toBe("sent");
    const delivered = await deliver(letter, "letter.delivered");
    expect(delivered.stored).toBe(1);
    expect((await followupOf(complete)).status).toBe("delivered");

    // A duplicate, and a late tracking step or return, change nothing, twice.
    for (let round = 0; round < 2; round++) {
      expect((await deliver(letter, "letter.delivered", delivered.eventId)).stored).toBe(0);
      await deliver(letter, "letter.mailed");
      await deliver(letter, "letter.returned_to_sender");
      expect(await followupOf(complete)).toMatchObject({ id, status: "delivered" });
    }
  });

  it("fails a letter returned to sender, keeping the reason", async () => {
    const debt = await addressedDebt(tenant);
    await sweepLive(dependencies);
    const sent = await followupOf(debt);
    expect(sent.status).toBe("sent");
    await deliver(lob.letters.get(sent.provider_message_id!)!, "letter.returned_to_sender");
    const returned = await followupOf(debt);
    expect(returned.status).toBe("failed");
    expect(returned.notes).toContain("letter.returned_to_sender");
    expect(returned.notes).toContain("returned to sender");
  });
});

describe("a letter whose create may have reached Lob", () => {
  const hourMs = 3_600_000;
  /** A new addressed debt of the two-attempt timeline, its first attempt sent by a sweep. */
  const firstAttempt = async () => {
    const debt = await addressedDebt(twoAttempts);
    await sweepLive(dependencies);
    return debt;
  };
  /** An hour later: the sweep that sends a retried attempt. */
  const nextHour = async () => {
    dependencies.clock.advance(hourMs);
    await sweepLive(dependencies);
  };

  it("is found at Lob when its answer was lost and every later try failed: sent once, not retried", async () => {
    lob.loseNextAnswers(1);
    lob.fail(3, 503);
    const debt = await firstAttempt();
    await nextHour();
    const attempts = await lettersOf(debt, twoAttempts);
    const letters = lobLettersFor(attempts);
    expect(letters).toHaveLength(1);
    expect(attempts.map((row) => [row.attempt, row.status, row.provider_message_id, row.notes])).toEqual([
      [1, "sent", letters[0]!.id, null],
    ]);
    expect(attempts[0]!.pdf_object_key).toMatch(/^letters\/.+:1\.pdf$/);
    expect(lob.lookups.at(-1)!.get("metadata[dc_send]")).toBe(letters[0]!.metadata["dc_send"]);
  });

  it("is retried by the next attempt when Lob refused every try: no letter, then one", async () => {
    const lookups = lob.lookups.length;
    lob.fail(4, 503);
    const debt = await firstAttempt();
    expect(lobLettersFor(await lettersOf(debt, twoAttempts))).toEqual([]);
    // Lob refused each try (503): nothing was made, so nothing is looked up.
    expect(lob.lookups).toHaveLength(lookups);
    await nextHour();
    const attempts = await lettersOf(debt, twoAttempts);
    const letters = lobLettersFor(attempts);
    expect(letters).toHaveLength(1);
    expect(attempts.map((row) => [row.attempt, row.status, row.provider_message_id, row.notes])).toEqual([
      [1, "failed", null, "lob HTTP 503 after 4 attempts: service_unavailable: Service unavailable"],
      [2, "sent", letters[0]!.id, null],
    ]);
  });

  it("fails for good, never sent again, when Lob cannot be asked whether it made the letter", async () => {
    lob.loseNextAnswers(1);
    lob.fail(3, 503);
    lob.failLookups(4, 503);
    const debt = await firstAttempt();
    await nextHour();
    const attempts = await lettersOf(debt, twoAttempts);
    expect(lobLettersFor(attempts)).toHaveLength(1);
    expect(attempts.map((row) => [row.attempt, row.status, row.provider_message_id])).toEqual([[1, "failed", null]]);
    expect(attempts[0]!.notes).toBe(
      "lob outcome unknown: the create may have been accepted (HTTP 503 after 4 attempts) and the lookup failed " +
        "(HTTP 503 after 4 attempts); not sent again",
    );
  });
});
