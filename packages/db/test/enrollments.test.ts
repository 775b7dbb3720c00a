/**
 * Enrollment, stop, pause and resume (docs/decisions/0600, 0601) against
 * real PostgreSQL: the anchor of each start mode, the one waiting followup,
 * restarts as new runs, and what each state change does to that followup.
 */
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import {
  enrollDebts,
  findEnrollmentView,
  pauseEnrollments,
  resumeEnrollments,
  scheduleSteps,
  stopEnrollments,
} from "../src/queries/enrollments/index.ts";
import { insertTimelineVersion } from "../src/queries/timelines/insert-timeline-version.ts";
import { useTestDatabase } from "../../testing/index.ts";
import { createTenant, fourSteps, insertDebts } from "./enrollments/fixtures.ts";

const { db } = await useTestDatabase();

/** Wednesday 2030-01-02 22:30 in Paris (21:30 UTC): outside the 09:00-19:00 window. */
const wednesdayNight = new Date("2030-01-02T21:30:00Z");

const followupsOf = (companyId: number, debtId: number) =>
  db
    .selectFrom("followups")
    .select([
      "id",
      "status",
      "type",
      "step",
      "attempt",
      "run",
      "due_at",
      "scheduled_at",
      "is_retry",
      "sandbox",
      "direction",
    ])
    .where("company_id", "=", companyId)
    .where("debt_id", "=", debtId)
    .orderBy("id")
    .execute();

const enrollmentOf = (companyId: number, debtId: number) =>
  db
    .selectFrom("enrollments")
    .selectAll()
    .where("company_id", "=", companyId)
    .where("debt_id", "=", debtId)
    .executeTakeFirst();

const enroll = (companyId: number, debtIds: number[], now: Date, restart = false) =>
  db.transaction().execute((trx) => enrollDebts(trx, { companyId, debtIds, now, restart }));

describe("enrollDebts", () => {
  it("anchors each start mode and schedules step 0 of the active ones, one followup each", async () => {
    const tenant = await createTenant(db);
    const [immediate, unset, nextWindow, dueDate, pastDue, manual] = await insertDebts(db, tenant, [
      { timelineStartMode: "immediate" },
      { timelineStartMode: null },
      { timelineStartMode: "next_window" },
      { timelineStartMode: "due_date", dueDate: "2030-01-10" },
      { timelineStartMode: "due_date", dueDate: "2029-12-01" },
      { timelineStartMode: "manual" },
    ]);
    const enrolled = await enroll(
      tenant.companyId,
      [immediate!, unset!, nextWindow!, dueDate!, pastDue!, manual!],
      wednesdayNight,
    );
    expect(enrolled).toHaveLength(6);

    const anchors = await db
      .selectFrom("enrollments")
      .select(["debt_id", "state", "reason", "anchor_at", "next_step", "run"])
      .where("company_id", "=", tenant.companyId)
      .orderBy("debt_id")
      .execute();
    expect(
      anchors.map((row) => [row.state, row.reason, row.anchor_at?.toISOString() ?? null, row.next_step, row.run]),
    ).toEqual([
      ["active", null, "2030-01-02T21:30:00.000Z", 1, 1],
      ["active", null, "2030-01-02T21:30:00.000Z", 1, 1],
      // Thursday 09:00 in Paris.
      ["active", null, "2030-01-03T08:00:00.000Z", 1, 1],
      // The due date at the window's start in Paris.
      ["active", null, "2030-01-10T08:00:00.000Z", 1, 1],
      ["active", null, "2030-01-02T21:30:00.000Z", 1, 1],
      ["paused", "awaiting_start", null, 0, 1],
    ]);

    const first = await followupsOf(tenant.companyId, nextWindow!);
    expect(first).toEqual([
      expect.objectContaining({
        status: "scheduled",
        type: "email",
        step: 0,
        attempt: 1,
        run: 1,
        is_retry: false,
        sandbox: false,
        direction: "outbound",
        due_at: new Date("2030-01-03T08:00:00Z"),
        scheduled_at: new Date("2030-01-03T08:00:00Z"),
      }),
    ]);
    expect(await followupsOf(tenant.companyId, manual!)).toEqual([]);
    const counts = await db
      .selectFrom("debts")
      .select(["id", "followups_count"])
      .where("company_id", "=", tenant.companyId)
      .orderBy("id")
      .execute();
    expect(counts.map((row) => row.followups_count)).toEqual([1, 1, 1, 1, 1, 0]);
  });

  it("counts days on the timeline's wall clock, across a daylight-saving change", async () => {
    const tenant = await createTenant(db);
    const [debt] = await insertDebts(db, tenant, [{ timelineStartMode: "next_window" }]);
    // Friday 2030-03-29 20:00 Paris (CET): the next window opens Monday 2030-04-01 09:00 CEST.
    await enroll(tenant.companyId, [debt!], new Date("2030-03-29T19:00:00Z"));
    const view = await findEnrollmentView(db, { companyId: tenant.companyId, debtId: debt! });
    expect(view?.steps.map((step) => step.dueAt?.toISOString())).toEqual([
      "2030-04-01T07:00:00.000Z",
      "2030-04-04T07:00:00.000Z",
      "2030-04-08T07:00:00.000Z",
      "2030-04-15T07:00:00.000Z",
    ]);
  });

  it("enrolls nothing for a paid or cancelled debt, a debt without a timeline, or another company's debt", async () => {
    const tenant = await createTenant(db);
    const other = await createTenant(db);
    const [paid, cancelled, none] = await insertDebts(db, tenant, [
      { status: "status.default.paid" },
      { status: "status.default.cancelled" },
      { timelineId: null },
    ]);
    const [foreign] = await insertDebts(db, other, [{}]);
    expect(await enroll(tenant.companyId, [paid!, cancelled!, none!, foreign!], wednesdayNight)).toEqual([]);
    expect(
      await db
        .selectFrom("enrollments")
        .select("id")
        .where("company_id", "in", [tenant.companyId, other.companyId])
        .execute(),
    ).toEqual([]);
    expect(
      await db
        .selectFrom("followups")
        .select("id")
        .where("company_id", "in", [tenant.companyId, other.companyId])
        .execute(),
    ).toEqual([]);
  });

  it("keeps an existing enrollment without restart, and starts a new run on the current version with restart", async () => {
    const tenant = await createTenant(db);
    const [debt] = await insertDebts(db, tenant, [{}]);
    await enroll(tenant.companyId, [debt!], wednesdayNight);
    await enroll(tenant.companyId, [debt!], new Date("2030-01-03T10:00:00Z"));
    expect(await followupsOf(tenant.companyId, debt!)).toHaveLength(1);

    const version2 = await db.transaction().execute((trx) =>
      insertTimelineVersion(trx, {
        companyId: tenant.companyId,
        timelineId: tenant.timelineId,
        definition: { ...fourSteps, steps: [{ day_offset: 1, channel: "sms", configuration: {}, content: {} }] },
        now: wednesdayNight,
      }),
    );
    expect(version2?.version).toBe(2);
    const restartAt = new Date("2030-01-04T10:00:00Z");
    await enroll(tenant.companyId, [debt!], restartAt, true);
    const enrollment = await enrollmentOf(tenant.companyId, debt!);
    expect(enrollment).toMatchObject({
      state: "active",
      run: 2,
      timeline_version_id: version2?.id,
      anchor_at: restartAt,
      next_step: 1,
    });
    const followups = await followupsOf(tenant.companyId, debt!);
    expect(followups.map((row) => [row.status, row.type, row.run, row.step, row.scheduled_at?.toISOString()])).toEqual([
      ["cancelled", "email", 1, 0, "2030-01-02T21:30:00.000Z"],
      ["scheduled", "sms", 2, 0, "2030-01-05T10:00:00.000Z"],
    ]);
    const debtRow = await db
      .selectFrom("debts")
      .select(["last_timeline_restart", "followups_count"])
      .where("id", "=", debt!)
      .executeTakeFirst();
    expect(debtRow).toEqual({ last_timeline_restart: restartAt, followups_count: 2 });
  });

  it("schedules on a sandbox company's own clock, in the sandbox index", async () => {
    const tenant = await createTenant(db, { sandboxNow: new Date("2030-06-03T08:00:00Z") });
    const [debt] = await insertDebts(db, tenant, [{}]);
    await enroll(tenant.companyId, [debt!], wednesdayNight);
    expect(await followupsOf(tenant.companyId, debt!)).toEqual([
      expect.objectContaining({ sandbox: true, scheduled_at: new Date("2030-06-03T08:00:00Z") }),
    ]);
  });
});

describe("scheduleSteps", () => {
  it("is idempotent per attempt, completes after the last step, and ignores another run", async () => {
    const tenant = await createTenant(db);
    const [debt] = await insertDebts(db, tenant, [{}]);
    const [enrolled] = await enroll(tenant.companyId, [debt!], wednesdayNight);
    const id = enrolled!.enrollmentId;
    const schedule = async (step: number, attempt: number, run = 1) => {
      const { scheduled, completed } = await db
        .transaction()
        .execute((trx) =>
          scheduleSteps(trx, tenant.companyId, [{ enrollmentId: id, run, step, attempt, at: null }], wednesdayNight),
        );
      return { scheduled, completed };
    };
    expect(await schedule(0, 1)).toEqual({ scheduled: 0, completed: 0 });
    expect(await schedule(1, 1, 2)).toEqual({ scheduled: 0, completed: 0 });
    expect(await schedule(3, 1)).toEqual({ scheduled: 1, completed: 0 });
    expect(await schedule(4, 1)).toEqual({ scheduled: 0, completed: 1 });
    expect(await enrollmentOf(tenant.companyId, debt!)).toMatchObject({ state: "completed", next_step: 4 });
    expect(await schedule(4, 1)).toEqual({ scheduled: 0, completed: 0 });
  });
});

describe("stop, pause and resume", () => {
  it("stops: the enrollment records its reason and its waiting followup is cancelled", async () => {
    const tenant = await createTenant(db);
    const [debt, untouched] = await insertDebts(db, tenant, [{}, {}]);
    await enroll(tenant.companyId, [debt!, untouched!], wednesdayNight);
    const stopped = await db
      .transaction()
      .execute((trx) =>
        stopEnrollments(trx, { companyId: tenant.companyId, debtIds: [debt!], reason: "paid", now: wednesdayNight }),
      );
    expect(stopped).toBe(1);
    expect(await enrollmentOf(tenant.companyId, debt!)).toMatchObject({ state: "stopped", reason: "paid" });
    expect((await followupsOf(tenant.companyId, debt!)).map((row) => row.status)).toEqual(["cancelled"]);
    expect((await followupsOf(tenant.companyId, untouched!)).map((row) => row.status)).toEqual(["scheduled"]);
    // A stopped enrollment is neither paused nor resumed.
    expect(
      await db.transaction().execute((trx) =>
        pauseEnrollments(trx, {
          companyId: tenant.companyId,
          debtIds: [debt!],
          until: null,
          reason: "paused",
          now: wednesdayNight,
        }),
      ),
    ).toBe(0);
    expect(
      await db
        .transaction()
        .execute((trx) =>
          resumeEnrollments(trx, { companyId: tenant.companyId, debtIds: [debt!], now: wednesdayNight }),
        ),
    ).toBe(0);
  });

  it("pauses into on_hold and resumes at the later of its time and now", async () => {
    const tenant = await createTenant(db);
    const [debt] = await insertDebts(db, tenant, [{ timelineStartMode: "next_window" }]);
    await enroll(tenant.companyId, [debt!], wednesdayNight);
    const until = new Date("2030-01-20T00:00:00Z");
    await db.transaction().execute((trx) =>
      pauseEnrollments(trx, {
        companyId: tenant.companyId,
        debtIds: [debt!],
        until,
        reason: "paused",
        now: wednesdayNight,
      }),
    );
    expect(await enrollmentOf(tenant.companyId, debt!)).toMatchObject({
      state: "paused",
      reason: "paused",
      paused_until: until,
    });
    expect((await followupsOf(tenant.companyId, debt!)).map((row) => row.status)).toEqual(["on_hold"]);
    const paused = await findEnrollmentView(db, { companyId: tenant.companyId, debtId: debt! });
    expect(paused).toMatchObject({ state: "paused", nextActionAt: null });

    const later = new Date("2030-01-06T12:00:00Z");
    await db
      .transaction()
      .execute((trx) => resumeEnrollments(trx, { companyId: tenant.companyId, debtIds: [debt!], now: later }));
    expect(await enrollmentOf(tenant.companyId, debt!)).toMatchObject({
      state: "active",
      reason: null,
      paused_until: null,
    });
    const [followup] = await followupsOf(tenant.companyId, debt!);
    expect(followup).toMatchObject({
      status: "scheduled",
      due_at: new Date("2030-01-03T08:00:00Z"),
      scheduled_at: later,
    });
    const view = await findEnrollmentView(db, { companyId: tenant.companyId, debtId: debt!, now: later });
    expect(view).toMatchObject({ state: "active", nextActionAt: later, now: later, version: 1, run: 1 });
    expect(view?.steps.map((step) => step.followups.map((row) => row.status))).toEqual([["scheduled"], [], [], []]);
  });

  it("starts a manual enrollment on resume, anchored then", async () => {
    const tenant = await createTenant(db);
    const [debt] = await insertDebts(db, tenant, [{ timelineStartMode: "manual" }]);
    await enroll(tenant.companyId, [debt!], wednesdayNight);
    expect(await findEnrollmentView(db, { companyId: tenant.companyId, debtId: debt! })).toMatchObject({
      state: "paused",
      reason: "awaiting_start",
      anchorAt: null,
    });
    const start = new Date("2030-01-07T09:00:00Z");
    expect(
      await db
        .transaction()
        .execute((trx) => resumeEnrollments(trx, { companyId: tenant.companyId, debtIds: [debt!], now: start })),
    ).toBe(1);
    expect(await enrollmentOf(tenant.companyId, debt!)).toMatchObject({
      state: "active",
      anchor_at: start,
      next_step: 1,
    });
    expect(await followupsOf(tenant.companyId, debt!)).toEqual([
      expect.objectContaining({ status: "scheduled", step: 0, due_at: start, scheduled_at: start }),
    ]);
  });

  it("reads nothing for a debt never enrolled, or of another company", async () => {
    const tenant = await createTenant(db);
    const other = await createTenant(db);
    const [debt] = await insertDebts(db, tenant, [{}]);
    await enroll(tenant.companyId, [debt!], wednesdayNight);
    expect(await findEnrollmentView(db, { companyId: other.companyId, debtId: debt! })).toBeUndefined();
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from followup_decisions`.execute(db);
    expect(rows[0]?.n).toBe(0);
  });
});
