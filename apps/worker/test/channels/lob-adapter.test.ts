import { type Database, findStoredObject, makeIds } from "@dc/db";
import { type FakeLob, startFakeLob, useTestDatabase } from "@dc/testing";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OutboundMessage } from "../../src/channels/channel-adapter.ts";
import type { LetterParts } from "../../src/channels/letter.ts";
import { letterObjectKey, lobAdapter } from "../../src/channels/lob-adapter.ts";
import { createProviderHttp, DEFAULT_PROVIDER_HTTP } from "../../src/channels/provider-http.ts";
import { type DebtScope, insertSendingFollowups, pdfText, seedDebt } from "./channel-fixtures.ts";

const API_KEY = "test_lob_key_0123456789";
const ids = makeIds(new Uint8Array(32).fill(7));

let db: Kysely<Database>;
let lob: FakeLob;
let scope: DebtScope;
const sleeps: number[] = [];
let adapter: ReturnType<typeof lobAdapter>;

beforeAll(async () => {
  ({ db } = await useTestDatabase());
  lob = await startFakeLob({ apiKey: API_KEY });
  const http = createProviderHttp({ ...DEFAULT_PROVIDER_HTTP, maxAttempts: 3, sendRatePerSecond: 1000 }, (ms) => {
    sleeps.push(ms);
    return Promise.resolve();
  });
  adapter = lobAdapter(db, ids, { baseUrl: lob.url, apiKey: API_KEY, fromAddress: "adr_return01" }, http);
  scope = await seedDebt(db, { name: "Recouvre SA" });
});

afterAll(async () => {
  await lob.close();
});

const parts: LetterParts = {
  to: {
    name: "M. Jean Dupont",
    company: null,
    line1: "12 rue de la Paix",
    postalCode: "75002",
    city: "Paris",
    country: "FR",
  },
  creditor: "Électricité du Nord",
  company: "Recouvre SA",
  amount: "1\u202f234,56\u00a0€",
  dueDate: "15 mars 2025",
  paymentLink: "https://pay.example/d/1",
  invoiceReference: "F-2025-001",
};

const message = async (overrides: Partial<OutboundMessage> = {}): Promise<OutboundMessage> => {
  const [id = 0] = await insertSendingFollowups(db, scope, 1, { type: "postmail" });
  return {
    followupId: id,
    idempotencyKey: `${ids.encode("followup", id)}:1`,
    companyId: scope.companyId,
    debtId: scope.debtId,
    channel: "postmail",
    recipient: "12 rue de la Paix, 75002 Paris, FR",
    subject: "Rappel de paiement : 1 234,56 € dus à Électricité du Nord",
    body: "Bonjour M. Jean Dupont,\n\nNous vous écrivons au nom d'Électricité du Nord.\n\nCordialement,\nRecouvre SA",
    configuration: {},
    at: new Date("2025-03-20T10:00:00Z"),
    language: "fr",
    letter: parts,
    ...overrides,
  };
};

describe("the Lob adapter", () => {
  it("creates the letter as Lob documents it and answers sent with the letter id and the stored PDF", async () => {
    const sent = await message();
    const before = lob.requests.length;
    const [outcome] = await adapter.send([sent]);
    const letter = [...lob.letters.values()].at(-1)!;
    expect(outcome).toEqual({
      status: "sent",
      providerMessageId: letter.id,
      pdfObjectKey: letterObjectKey(sent.idempotencyKey),
    });
    expect(letter.id).toMatch(/^ltr_[0-9a-f]{16}$/);

    expect(lob.requests).toHaveLength(before + 1);
    const request = lob.requests.at(-1)!;
    expect(request.authorization).toBe(`Basic ${Buffer.from(`${API_KEY}:`).toString("base64")}`);
    expect(request.idempotencyKey).toBe(sent.idempotencyKey);
    expect(request.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(request.fields).toEqual({
      description: "Recouvre SA: Rappel de paiement : 1 234,56 € dus à Électricité du Nord",
      "to[name]": "M. Jean Dupont",
      "to[address_line1]": "12 rue de la Paix",
      "to[address_city]": "Paris",
      "to[address_zip]": "75002",
      "to[address_country]": "FR",
      from: "adr_return01",
      color: "false",
      use_type: "operational",
      address_placement: "insert_blank_page",
      mail_type: "usps_first_class",
      "metadata[dc_company]": ids.encode("company", scope.companyId),
      "metadata[dc_followup]": ids.encode("followup", sent.followupId),
      "metadata[dc_send]": sent.idempotencyKey,
    });
    expect(request.file?.type).toBe("application/pdf");

    const stored = await findStoredObject(db, scope.companyId, letterObjectKey(sent.idempotencyKey));
    expect(stored?.content_type).toBe("application/pdf");
    expect(Buffer.from(stored!.body).equals(Buffer.from(request.file!.bytes))).toBe(true);
    const text = await pdfText(stored!.body);
    for (const expected of [
      "M. Jean Dupont",
      "12 rue de la Paix",
      "75002 Paris",
      "FRANCE",
      "Créancier: Électricité du Nord",
      "Montant dû: 1 234,56 €",
      "Échéance: 15 mars 2025",
      "Facture: F-2025-001",
      "Payer en ligne: https://pay.example/d/1",
      "20 mars 2025",
    ])
      expect(text).toContain(expected);
  });

  it("writes an English letter in English", async () => {
    const sent = await message({
      language: "en",
      subject: "Payment reminder",
      body: "Dear Jane Doe,\n\nYou owe €1,234.56.",
      letter: {
        ...parts,
        to: {
          name: "Jane Doe",
          company: "Doe Ltd",
          line1: "1 Main St",
          postalCode: "94107",
          city: "San Francisco",
          country: "US",
        },
        amount: "€1,234.56",
        dueDate: "15 March 2025",
      },
    });
    const [outcome] = await adapter.send([sent]);
    expect(outcome).toMatchObject({ status: "sent" });
    const stored = await findStoredObject(db, scope.companyId, letterObjectKey(sent.idempotencyKey));
    const text = await pdfText(stored!.body);
    for (const expected of [
      "Jane Doe",
      "Doe Ltd",
      "94107 San Francisco",
      "UNITED STATES",
      "Amount due: €1,234.56",
      "Creditor: Électricité du Nord",
    ])
      expect(text).toContain(expected);
  });

  it("fails a debt without a complete address for good, before drawing or sending anything", async () => {
    const sent = await message({ letter: { ...parts, to: { ...parts.to, postalCode: null, country: null } } });
    const before = lob.requests.length;
    const [outcome] = await adapter.send([sent]);
    expect(outcome).toEqual({
      status: "failed",
      retryable: false,
      error: "incomplete_postal_address: missing postal code, country",
    });
    expect(lob.requests).toHaveLength(before);
    expect(await findStoredObject(db, scope.companyId, letterObjectKey(sent.idempotencyKey))).toBeUndefined();
  });

  it("sends a resent attempt's key again and gets the same letter back, not a second letter", async () => {
    const sent = await message();
    const [first] = await adapter.send([sent]);
    const letters = lob.letters.size;
    const [second] = await adapter.send([sent]);
    expect(second).toEqual(first);
    expect(lob.letters.size).toBe(letters);
  });

  it("retries an outage with backoff, honouring Retry-After, then fails it retryable with the reason", async () => {
    sleeps.length = 0;
    lob.fail(1, 503, 2);
    const recovered = await message();
    const [outcome] = await adapter.send([recovered]);
    expect(outcome).toMatchObject({ status: "sent" });
    expect(sleeps).toEqual([2000]);

    sleeps.length = 0;
    lob.fail(3, 503);
    const letters = lob.letters.size;
    const [failed] = await adapter.send([await message()]);
    expect(failed).toEqual({
      status: "failed",
      retryable: true,
      error: "lob HTTP 503 after 3 attempts: service_unavailable: Service unavailable",
    });
    expect(sleeps).toEqual([500, 1000]);
    expect(lob.letters.size).toBe(letters);
  });

  it("looks a failed create up when a try may have reached Lob, and answers what Lob holds", async () => {
    // The answer lost, then a refusal for good: Lob made the letter, so the send is that letter.
    lob.loseNextAnswers(1);
    lob.fail(1, 422);
    const lost = await message();
    const letters = lob.letters.size;
    const [found] = await adapter.send([lost]);
    const letter = [...lob.letters.values()].at(-1)!;
    expect(lob.letters.size).toBe(letters + 1);
    expect(found).toEqual({
      status: "sent",
      providerMessageId: letter.id,
      pdfObjectKey: letterObjectKey(lost.idempotencyKey),
    });
    expect(lob.lookups.at(-1)!.get("metadata[dc_send]")).toBe(lost.idempotencyKey);

    // 500s may come after Lob acted: asked, Lob holds nothing, so the outage stays retryable.
    const lookups = lob.lookups.length;
    lob.fail(3, 500);
    const [failed] = await adapter.send([await message()]);
    expect(failed).toEqual({
      status: "failed",
      retryable: true,
      error: "lob HTTP 500 after 3 attempts: service_unavailable: Service unavailable",
    });
    expect(lob.lookups).toHaveLength(lookups + 1);
    expect(lob.letters.size).toBe(letters + 1);
  });

  it("repeats a create whose answer was lost under the same key and gets the one letter Lob made", async () => {
    sleeps.length = 0;
    const letters = lob.letters.size;
    const before = lob.requests.length;
    lob.loseNextAnswers(1);
    const sent = await message();
    const [outcome] = await adapter.send([sent]);
    expect(outcome).toMatchObject({ status: "sent" });
    expect(lob.letters.size).toBe(letters + 1);
    expect(lob.requests.slice(before).map((request) => request.idempotencyKey)).toEqual([
      sent.idempotencyKey,
      sent.idempotencyKey,
    ]);
    expect(sleeps).toEqual([500]);
  });

  it("fails a letter Lob refuses (4xx) for good with Lob's message, without retrying", async () => {
    sleeps.length = 0;
    const refused = lobAdapter(
      db,
      ids,
      { baseUrl: lob.url, apiKey: "wrong_key_0000000", fromAddress: "adr_return01" },
      createProviderHttp(DEFAULT_PROVIDER_HTTP, (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      }),
    );
    const [outcome] = await refused.send([await message()]);
    expect(outcome).toEqual({
      status: "failed",
      retryable: false,
      error: "lob HTTP 401: unauthorized: Your API key is not valid.",
    });
    expect(sleeps).toEqual([]);
  });

  it("looks a crashed send up by its key: the letter Lob holds, or null when it never arrived", async () => {
    const sent = await message();
    const [outcome] = await adapter.send([sent]);
    expect(await adapter.lookup(sent)).toEqual(outcome);
    expect(await adapter.lookup(await message())).toBeNull();
  });
});
