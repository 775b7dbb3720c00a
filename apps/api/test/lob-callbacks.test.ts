import { startFakeLob } from "@dc/testing";
import { afterAll, describe, expect, it } from "vitest";
import { collectionRows } from "./support/collection-rows.ts";
import { startTestApi } from "./support/harness.ts";
import { lobLetter as letterOf } from "./support/public-requests.ts";

const SECRET = "lob_webhook_secret_for_tests";
const PATH = "/provider-callbacks/lob/letters";

const t = await startTestApi();
const lobApi = await t.startAnotherApi({
  environment: { LOB_API_KEY: "test_lob_key_0123456789", LOB_WEBHOOK_SECRET: SECRET },
});
const lob = await startFakeLob({ apiKey: "unused" });
afterAll(async () => {
  await lobApi.stop();
  await lob.close();
});

const { ids } = t.api.services;
const rows = collectionRows(t.db, ids);
const acme = await t.tenant("Acme Collections");
const globex = await t.tenant("Globex");

const post = (body: string, headers: Record<string, string>, url = lobApi.url) =>
  fetch(`${url}${PATH}`, { method: "POST", headers, body });

const stored = () =>
  t.db
    .selectFrom("provider_events")
    .select(["company_id", "provider", "event_key"])
    .where("company_id", "in", [rows.companyOf(acme), rows.companyOf(globex)])
    .orderBy("received_at")
    .orderBy("id")
    .execute();
const jobs = async () =>
  Number(
    (
      await t.db
        .selectFrom("graphile_worker._private_jobs" as never)
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe("Lob's letter webhook", () => {
  it("stores a signed event once for the company its metadata names, with one job; a duplicate stores nothing", async () => {
    const event = lob.event(letterOf(acme, "ltr_0000000000000001"), "letter.delivered", SECRET, { at: t.clock.now() });
    const first = await post(event.body, event.headers);
    expect(first.status).toBe(200);
    expect(await first.text()).toBe("");
    const eventId = (JSON.parse(event.body) as { id: string }).id;
    expect(await stored()).toEqual([{ company_id: rows.companyOf(acme), provider: "lob", event_key: eventId }]);
    const queued = await jobs();
    expect(queued).toBe(1);

    const again = await post(event.body, event.headers);
    expect(again.status).toBe(200);
    expect(await stored()).toHaveLength(1);
    expect(await jobs()).toBe(queued);
  });

  it("refuses an unsigned, forged, tampered or stale event with 403 and writes nothing", async () => {
    const before = await stored();
    const letter = letterOf(acme, "ltr_0000000000000002");
    const good = lob.event(letter, "letter.returned_to_sender", SECRET, { at: t.clock.now() });
    const forged = lob.event(letter, "letter.returned_to_sender", "not_the_secret_at_all", { at: t.clock.now() });
    const stale = lob.event(letter, "letter.returned_to_sender", SECRET, {
      at: new Date(t.clock.now().getTime() - 5 * 60_000 - 1),
    });
    const { "lob-signature": _signature, ...unsigned } = good.headers;
    const attempts: Array<[string, Record<string, string>]> = [
      [good.body, unsigned],
      [forged.body, forged.headers],
      [good.body.replace("returned_to_sender", "delivered"), good.headers],
      [good.body, { ...good.headers, "lob-signature-timestamp": String(t.clock.now().getTime() + 1) }],
      [stale.body, stale.headers],
    ];
    for (const [body, headers] of attempts) {
      const response = await post(body, headers);
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({
        error: true,
        message: "Invalid or missing provider signature",
        code: 403,
      });
    }
    expect(await stored()).toEqual(before);
  });

  it("acknowledges an event without our metadata and stores nothing; an unknown company is 404", async () => {
    const before = await stored();
    const foreign = { ...letterOf(acme, "ltr_0000000000000003"), metadata: {} };
    const test = lob.event(foreign, "letter.created", SECRET, { at: t.clock.now() });
    expect((await post(test.body, test.headers)).status).toBe(200);
    const unknown = lob.event(
      letterOf({ company_id: "not-a-company" }, "ltr_0000000000000004"),
      "letter.delivered",
      SECRET,
      {
        at: t.clock.now(),
      },
    );
    const response = await post(unknown.body, unknown.headers);
    expect(response.status).toBe(404);
    expect(await stored()).toEqual(before);
  });

  it("files each event under its own company", async () => {
    const event = lob.event(letterOf(globex, "ltr_0000000000000005"), "letter.in_transit", SECRET, {
      at: t.clock.now(),
    });
    expect((await post(event.body, event.headers)).status).toBe(200);
    expect((await stored()).at(-1)).toMatchObject({ company_id: rows.companyOf(globex), provider: "lob" });
  });

  it("refuses a body that is not JSON with 415, and every event when Lob's secret is not configured", async () => {
    const event = lob.event(letterOf(acme, "ltr_0000000000000006"), "letter.delivered", SECRET, { at: t.clock.now() });
    const before = await stored();
    expect((await post(event.body, { ...event.headers, "content-type": "text/plain" })).status).toBe(415);
    const unconfigured = await post(event.body, event.headers, t.api.url);
    expect(unconfigured.status).toBe(403);
    expect(await stored()).toEqual(before);
  });
});
