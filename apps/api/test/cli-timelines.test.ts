/**
 * `cli timeline create|update|show` as an administrator runs them: a JSON
 * definition from a file or standard input, checked whole (a refusal names
 * each JSON path and writes nothing), written as the timeline's timepoints
 * and actions (what GET /timelines reads) and as a new version that new
 * enrollments take, while enrolled debts keep theirs.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliRunner } from "./support/cli-process.ts";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";

const t = await startTestApi();
const cli = cliRunner(t.databaseUrl);
const { ids } = t.api.services;
const rows = collectionRows(t.db, ids);
const tenant = await t.tenant("Authoring Co");
const companyId = rows.companyOf(tenant);
const token = await t.token(tenant, "debts:read");
const directory = await mkdtemp(join(tmpdir(), "dc-timelines-"));
afterAll(() => rm(directory, { recursive: true, force: true }));

const LIST = "/external-api/v1/timelines";

const definition = {
  scheduling: { time_zone: "America/New_York", weekdays: [1, 2, 3, 4, 5, 6], window: { start: "08:30", end: "20:00" } },
  steps: [
    { day_offset: 5, channel: "sms", content: { body: "Hello {{firstname}}" } },
    {
      day_offset: 0,
      channel: "email",
      configuration: { max_attempts: 3 },
      content: { subject: "Reminder", body: "Pay" },
    },
    { day_offset: 5, channel: "ai_call", configuration: { voice: "warm" } },
  ],
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON output field by field
type Json = Record<string, any>;

const ok = (run: { code: number | null; stdout: string; stderr: string }): Json => {
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as Json;
};

const timelineCount = async () =>
  Number(
    (
      await t.db
        .selectFrom("timelines")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("company_id", "=", companyId)
        .executeTakeFirstOrThrow()
    ).n,
  );

const listed = async () => (await expectContract(await t.get(`${LIST}?limit=100`, token), "get", LIST)).data as Json[];

/** Each CLI run is a process that starts Node and checks migrations: seconds each on a busy machine. */
const CLI_TESTS = { timeout: 180_000 };

describe("cli timeline create", CLI_TESTS, () => {
  it("writes a definition from a file as timepoints, actions and version 1", async () => {
    const file = join(directory, "weekly.json");
    await writeFile(file, JSON.stringify(definition));
    const created = ok(
      await cli(["timeline", "create", "--company", tenant.company_id, "--name", "Weekly", "--file", file]),
    );
    expect(created).toEqual({
      id: expect.any(String),
      company_id: tenant.company_id,
      name: "Weekly",
      is_default: false,
      current_version: 1,
    });

    const shown = (await listed()).find((timeline) => timeline["id"] === created["id"]);
    expect(shown).toMatchObject({
      name: "Weekly",
      is_default: false,
      scheduling: {
        timezone: "America/New_York",
        allowed_weekdays: [1, 2, 3, 4, 5, 6],
        window_start: "08:30",
        window_end: "20:00",
      },
      timepoints: [
        {
          day_offset: 0,
          position: 0,
          actions: [{ channel: "email", position: 0, configuration: { max_attempts: 3 } }],
        },
        {
          day_offset: 5,
          position: 1,
          actions: [
            { channel: "sms", position: 0, configuration: {} },
            { channel: "ai_call", position: 1, configuration: { voice: "warm" } },
          ],
        },
      ],
    });

    const timelineId = ids.decode("timeline", created["id"])!;
    const versions = await t.db
      .selectFrom("timeline_versions as v")
      .innerJoin("timelines as t", (join) =>
        join.onRef("t.current_version_id", "=", "v.id").onRef("t.company_id", "=", "v.company_id"),
      )
      .select(["v.version", "v.definition"])
      .where("v.timeline_id", "=", timelineId)
      .execute();
    // Stored in run order, with the optional parts made explicit.
    expect(versions).toEqual([
      {
        version: 1,
        definition: {
          scheduling: definition.scheduling,
          steps: [
            {
              day_offset: 0,
              channel: "email",
              configuration: { max_attempts: 3 },
              content: { subject: "Reminder", body: "Pay" },
            },
            { day_offset: 5, channel: "sms", configuration: {}, content: { body: "Hello {{firstname}}" } },
            { day_offset: 5, channel: "ai_call", configuration: { voice: "warm" }, content: {} },
          ],
        },
      },
    ]);
  });

  it("reads the definition from standard input, and --default makes it the company's only default", async () => {
    const before = await listed();
    expect(before.filter((timeline) => timeline["is_default"]).map((timeline) => timeline["id"])).toEqual([
      tenant.timeline_id,
    ]);
    const created = ok(
      await cli(
        ["timeline", "create", "--company", tenant.company_id, "--name", "Piped", "--default"],
        JSON.stringify(definition),
      ),
    );
    expect(created).toMatchObject({ name: "Piped", is_default: true, current_version: 1 });
    const after = await listed();
    expect(after.filter((timeline) => timeline["is_default"]).map((timeline) => timeline["id"])).toEqual([
      created["id"],
    ]);
  });

  it("refuses an invalid definition naming each JSON path, and writes nothing", async () => {
    const count = await timelineCount();
    const bad = {
      scheduling: { time_zone: "Mars/Olympus", weekdays: [0, 3], window: { start: "9:00", end: "19:00" } },
      steps: [
        { day_offset: 0, channel: "email" },
        { day_offset: 400, channel: "fax", content: { subject: "x", script: "y" } },
      ],
      extra: true,
    };
    const run = await cli(["timeline", "create", "--company", tenant.company_id, "--name", "Bad"], JSON.stringify(bad));
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr.split("\n")).toEqual([
      "the timeline definition is invalid; nothing was written:",
      "  extra: unknown field",
      "  scheduling.time_zone: must be an IANA time zone such as Europe/Paris",
      "  scheduling.weekdays.0: must be an ISO weekday from 1 (Monday) to 7 (Sunday)",
      "  scheduling.window.start: must be a time of day HH:MM (00:00 to 24:00)",
      "  steps.1.day_offset: must be an integer from 0 to 365",
      "  steps.1.channel: must be one of: email, sms, whatsapp, ai_call, voicemail, manual_call, postmail",
      "  steps.1.content.script: unknown field",
      "",
    ]);

    for (const [input, message] of [
      ["{not json", /^the timeline definition is invalid; nothing was written:\n {2}not JSON: /],
      ['{"scheduling": {}, "scheduling": {}}', /\n {2}scheduling: the key "scheduling" appears more than once\n$/],
      ["{}", /\n {2}scheduling: is missing\n {2}steps: is missing\n$/],
      [JSON.stringify({ ...definition, steps: [] }), /\n {2}steps: must contain at least 1 step\n$/],
    ] as const) {
      const refused = await cli(["timeline", "create", "--company", tenant.company_id, "--name", "Bad"], input);
      expect(refused.code, input).toBe(2);
      expect(refused.stderr, input).toMatch(message);
    }
    const missingFile = await cli([
      "timeline",
      "create",
      "--company",
      tenant.company_id,
      "--name",
      "Bad",
      "--file",
      join(directory, "none.json"),
    ]);
    expect(missingFile.code).toBe(2);
    expect(missingFile.stderr).toBe(`--file: cannot read ${join(directory, "none.json")}: ENOENT\n`);
    const noName = await cli(["timeline", "create", "--company", tenant.company_id], JSON.stringify(definition));
    expect(noName.stderr).toBe("--name is required\n");
    expect(await timelineCount()).toBe(count);
  });
});

describe("cli timeline update and show", CLI_TESTS, () => {
  it("writes a new version that new enrollments take, while enrolled debts keep theirs", async () => {
    const created = ok(
      await cli(
        ["timeline", "create", "--company", tenant.company_id, "--name", "Versioned"],
        JSON.stringify(definition),
      ),
    );
    const timelineId = ids.decode("timeline", created["id"])!;
    const first = await t.db
      .selectFrom("timelines")
      .select("current_version_id")
      .where("id", "=", timelineId)
      .executeTakeFirstOrThrow();
    // A debt enrolled on version 1, as the engine enrolls it.
    const debtId = await rows.debt(tenant, { timeline_id: timelineId });
    await t.db
      .insertInto("enrollments")
      .values({
        company_id: companyId,
        debt_id: debtId,
        timeline_id: timelineId,
        timeline_version_id: first.current_version_id!,
        state: "active",
        anchor_at: new Date("2026-11-21T10:00:00Z"),
      })
      .execute();

    const next = { ...definition, steps: [{ day_offset: 2, channel: "whatsapp" }] };
    const updated = ok(
      await cli(["timeline", "update", "--timeline", created["id"], "--name", "Versioned v2"], JSON.stringify(next)),
    );
    expect(updated).toEqual({
      id: created["id"],
      company_id: tenant.company_id,
      name: "Versioned v2",
      is_default: false,
      current_version: 2,
      debts_on_earlier_versions: 1,
    });
    const enrollment = await t.db
      .selectFrom("enrollments")
      .select("timeline_version_id")
      .where("debt_id", "=", debtId)
      .executeTakeFirstOrThrow();
    expect(enrollment.timeline_version_id).toBe(first.current_version_id);

    const shown = (await listed()).find((timeline) => timeline["id"] === created["id"]);
    expect(shown?.["name"]).toBe("Versioned v2");
    expect(shown?.["timepoints"]).toEqual([
      { day_offset: 2, position: 0, actions: [{ channel: "whatsapp", position: 0, configuration: {} }] },
    ]);

    const show = ok(await cli(["timeline", "show", "--timeline", created["id"]]));
    expect(show).toEqual({
      id: created["id"],
      company_id: tenant.company_id,
      name: "Versioned v2",
      is_default: false,
      archived: false,
      current_version: 2,
      version: 2,
      definition: {
        scheduling: definition.scheduling,
        steps: [{ day_offset: 2, channel: "whatsapp", configuration: {}, content: {} }],
      },
      versions: [
        { version: 2, created_at: expect.any(String), current: true, enrolled_debts: 0 },
        { version: 1, created_at: expect.any(String), current: false, enrolled_debts: 1 },
      ],
    });
    const old = ok(await cli(["timeline", "show", "--timeline", created["id"], "--version", "1"]));
    expect(old["version"]).toBe(1);
    expect(old["definition"]["steps"]).toHaveLength(3);
    const none = await cli(["timeline", "show", "--timeline", created["id"], "--version", "3"]);
    expect(none.stderr).toBe("--version: the timeline has no version 3\n");
  });

  it("refuses an invalid definition, an archived timeline and an unknown id, writing nothing", async () => {
    const created = ok(
      await cli(["timeline", "create", "--company", tenant.company_id, "--name", "Frozen"], JSON.stringify(definition)),
    );
    const bad = await cli(
      ["timeline", "update", "--timeline", created["id"]],
      JSON.stringify({ ...definition, steps: [{ day_offset: -1, channel: "sms" }] }),
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("  steps.0.day_offset: must be an integer from 0 to 365\n");
    const timelineId = ids.decode("timeline", created["id"])!;
    await t.db.updateTable("timelines").set({ archived_at: new Date() }).where("id", "=", timelineId).execute();
    const archived = await cli(["timeline", "update", "--timeline", created["id"]], JSON.stringify(definition));
    expect(archived.stderr).toBe("--timeline: the timeline is archived\n");
    const versions = await t.db
      .selectFrom("timeline_versions")
      .select("version")
      .where("timeline_id", "=", timelineId)
      .execute();
    expect(versions).toEqual([{ version: 1 }]);
    const unknown = await cli(["timeline", "show", "--timeline", "nope"]);
    expect(unknown.stderr).toBe("--timeline: no timeline with id nope\n");
  });
});
