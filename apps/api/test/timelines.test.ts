import { describe, expect, it } from "vitest";
import { createTimeline } from "../src/admin/collection-setup.ts";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";

const t = await startTestApi();
const { ids } = t.api.services;
const rows = collectionRows(t.db, ids);
// Each tenant starts with its default "Standard collection" timeline (default templates, no content).
const acme = await t.tenant("Acme Collections");
const globex = await t.tenant("Globex");
const acmeCompany = rows.companyOf(acme);
const token = await t.token(acme);

const LIST = "/external-api/v1/timelines";

// Its action content holds subjects ("Payment reminder", "Final notice") and a callback number (+33100000000).
const second = await createTimeline(t.db, acmeCompany, "Soft reminders", {
  scheduling: { time_zone: "America/New_York", weekdays: [1, 3, 5, 6], window: { start: "08:30", end: "17:45" } },
  steps: [
    {
      day_offset: 0,
      channel: "email",
      configuration: {},
      content: { subject: "Payment reminder", body: "Please pay." },
    },
    { day_offset: 3, channel: "sms", configuration: {}, content: { body: "Call us back on +33100000000" } },
    { day_offset: 7, channel: "ai_call", configuration: {}, content: {} },
    { day_offset: 14, channel: "email", configuration: {}, content: { subject: "Final notice" } },
  ],
});
await t.db.updateTable("timelines").set({ description: "Gentle" }).where("id", "=", second.id).execute();
// A content key filed under configuration by mistake is not returned either.
const misfiled = await t.db
  .selectFrom("timeline_actions as a")
  .innerJoin("timeline_timepoints as tp", "tp.id", "a.timepoint_id")
  .select("a.id")
  .where("tp.timeline_id", "=", second.id)
  .where("tp.position", "=", 2)
  .executeTakeFirstOrThrow();
await t.db
  .updateTable("timeline_actions")
  .set({
    configuration: JSON.stringify({
      voice: "warm",
      max_attempts: 3,
      subject: "Misfiled subject",
      callback_number: "+33199999999",
      call_back_number: "+33188888888",
      "Call-Back Phone": "+33177777777",
      "sms.body": "Misfiled body",
      retry: { delay_minutes: 30, voicemail: { greeting_text: "Nested greeting", leave_message: false } },
      channels: [{ kind: "sms", sender: "ACME", template_id: "Nested template" }],
    }),
  })
  .where("id", "=", misfiled.id)
  .execute();
const archived = await createTimeline(t.db, acmeCompany, "Old schedule");
await t.db
  .updateTable("timelines")
  .set({ archived_at: new Date("2026-01-01T00:00:00Z") })
  .where("id", "=", archived.id)
  .execute();
const globexExtra = await createTimeline(t.db, rows.companyOf(globex), "Globex only");

describe("GET /timelines", () => {
  it("lists the company's timelines with scheduling, timepoints and actions", async () => {
    const response = await t.get(LIST, token);
    expect(response.status).toBe(200);
    const body = await expectContract(response, "get", LIST);
    expect(body.pagination).toEqual({ total: 2, page: 1, limit: 20, pages: 1 });
    expect(body.data.map((timeline: { id: string }) => timeline.id)).toEqual([
      acme.timeline_id,
      ids.encode("timeline", second.id),
    ]);
    expect(body.data[0]).toEqual({
      id: acme.timeline_id,
      name: "Standard collection",
      description: null,
      is_default: true,
      scheduling: {
        timezone: null,
        allowed_weekdays: [1, 2, 3, 4, 5],
        window_start: "09:00",
        window_end: "19:00",
      },
      timepoints: [
        { day_offset: 0, position: 0, actions: [{ channel: "email", position: 0, configuration: {} }] },
        { day_offset: 3, position: 1, actions: [{ channel: "sms", position: 0, configuration: {} }] },
        {
          day_offset: 7,
          position: 2,
          actions: [{ channel: "ai_call", position: 0, configuration: { max_attempts: 2 } }],
        },
        { day_offset: 14, position: 3, actions: [{ channel: "email", position: 0, configuration: {} }] },
      ],
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/),
      updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/),
    });
    expect(body.data[1]).toMatchObject({
      name: "Soft reminders",
      description: "Gentle",
      is_default: false,
      scheduling: {
        timezone: "America/New_York",
        allowed_weekdays: [1, 3, 5, 6],
        window_start: "08:30",
        window_end: "17:45",
      },
    });
    expect(body.data[1].timepoints[2].actions[0].configuration).toEqual({
      voice: "warm",
      max_attempts: 3,
      retry: { delay_minutes: 30, voicemail: {} },
      channels: [{ kind: "sms", sender: "ACME" }],
    });
  });

  it("never returns message content: subjects, bodies, scripts or callback numbers", async () => {
    const text = await (await t.get(LIST, token)).text();
    for (const secret of [
      "Payment reminder",
      "Final notice",
      "+33100000000",
      "+33199999999",
      "+33188888888",
      "+33177777777",
      "Misfiled body",
      "Misfiled subject",
      "Nested greeting",
      "Nested template",
      "callback",
      '"subject"',
      '"script"',
      '"body"',
      "content",
    ]) {
      expect(text, secret).not.toContain(secret);
    }
  });

  it("gives ids that are the tenant's timeline ids, and excludes archived and other companies' timelines", async () => {
    const body = await expectContract(await t.get(LIST, token), "get", LIST);
    const listed = body.data.map((timeline: { id: string }) => timeline.id);
    expect(ids.decode("timeline", listed[0])).toBe(ids.decode("timeline", acme.timeline_id));
    expect(listed).not.toContain(ids.encode("timeline", archived.id));
    expect(listed).not.toContain(globex.timeline_id);
    expect(listed).not.toContain(ids.encode("timeline", globexExtra.id));
    const other = await expectContract(await t.get(LIST, await t.token(globex)), "get", LIST);
    expect(other.data.map((timeline: { id: string }) => timeline.id)).toEqual([
      globex.timeline_id,
      ids.encode("timeline", globexExtra.id),
    ]);
  });

  it("paginates and validates page and limit", async () => {
    const page2 = await expectContract(await t.get(`${LIST}?limit=1&page=2`, token), "get", LIST);
    expect(page2.data.map((timeline: { name: string }) => timeline.name)).toEqual(["Soft reminders"]);
    expect(page2.pagination).toEqual({ total: 2, page: 2, limit: 1, pages: 2 });
    const past = await expectContract(await t.get(`${LIST}?page=3&limit=1`, token), "get", LIST);
    expect(past).toEqual({ error: false, data: [], pagination: { total: 2, page: 3, limit: 1, pages: 2 } });
    const bad = await t.get(`${LIST}?limit=-5`, token);
    expect(bad.status).toBe(400);
    expect((await expectContract(bad, "get", LIST)).details).toEqual({ limit: "must be an integer from 1 to 100" });
  });

  it("requires debts:read", async () => {
    const response = await t.get(LIST, await t.token(acme, "followups:read"));
    expect(response.status).toBe(403);
    expect(await expectContract(response, "get", LIST)).toEqual({
      error: true,
      message: 'Required scope "debts:read" not found in token',
      code: 403,
    });
  });
});
