/**
 * The coalesced admission (src/http/fast-paths/admission.ts) answers a burst
 * of concurrent requests exactly as admitting the same requests one after
 * another, one statement each, answers them: the same outcome for each
 * request in arrival order (its remaining budget, or the error's tag), and
 * the same counter afterwards. Against real PostgreSQL, on values from
 * fast-check: the burst's size, the budget already spent, the limit, and
 * whether the token is valid and holds the scope.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AdmissionRule, createAdmission } from "../src/http/fast-paths/admission.ts";
import { startTestApi } from "./support/harness.ts";

const t = await startTestApi();
const tenant = await t.tenant("Admission Equality Corp");
const token = await t.token(tenant, "company:read");
const { id: companyId } = await t.db
  .selectFrom("companies")
  .select("id")
  .where("name", "=", "Admission Equality Corp")
  .executeTakeFirstOrThrow();

const WINDOW_SECONDS = 3600;
const subject = (run: number, side: string) => `admission-equality-${run}-${side}`;

/** Sets the counter of `subjectName` in the current window to `count`, as if that many requests had been admitted. */
const spend = async (subjectName: string, count: number) => {
  const windowStart = new Date(Math.floor(t.clock.now().getTime() / (WINDOW_SECONDS * 1000)) * WINDOW_SECONDS * 1000);
  await t.db
    .insertInto("rate_limit_counters")
    .values({
      key: `company:${companyId}:${subjectName}`,
      window_start: windowStart,
      count,
      expires_at: new Date(windowStart.getTime() + WINDOW_SECONDS * 1000),
    })
    .execute();
};

const counter = async (subjectName: string) =>
  (
    await t.db
      .selectFrom("rate_limit_counters")
      .select("count")
      .where("key", "=", `company:${companyId}:${subjectName}`)
      .executeTakeFirst()
  )?.count;

/** What a caller can tell of an admission: the remaining budget, or the error's tag. */
const outcome = (settled: PromiseSettledResult<{ rateLimit: { remaining: number } | undefined }>) =>
  settled.status === "fulfilled"
    ? { admitted: settled.value.rateLimit?.remaining ?? null }
    : { refused: (settled.reason as { _tag?: string })._tag ?? String(settled.reason) };

describe("coalesced admission", () => {
  it("answers a concurrent burst as one statement per request, in arrival order, would", { timeout: 60_000 }, async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 1, max: 10 }),
        fc.constantFrom("valid", "unknown token", "missing scope"),
        async (burst, spent, limit, kind) => {
          run += 1;
          const authorization = kind === "unknown token" ? "Bearer not-a-token" : `Bearer ${token}`;
          const rule = (side: string): AdmissionRule => ({
            scope: kind === "missing scope" ? "debts:write" : "company:read",
            rateLimit: { subject: subject(run, side), limit: { requests: limit, windowSeconds: WINDOW_SECONDS, per: "operation" } },
          });
          await spend(subject(run, "coalesced"), spent);
          await spend(subject(run, "alone"), spent);

          const admit = createAdmission(t.db, t.clock);
          const coalesced = await Promise.allSettled(
            Array.from({ length: burst }, () => admit(authorization, rule("coalesced"))),
          );
          const alone: Array<PromiseSettledResult<Awaited<ReturnType<typeof admit>>>> = [];
          for (let i = 0; i < burst; i++) {
            // Awaited one by one: each request is alone in its statement.
            alone.push((await Promise.allSettled([admit(authorization, rule("alone"))]))[0]!);
          }
          expect(coalesced.map(outcome)).toEqual(alone.map(outcome));
          expect(await counter(subject(run, "coalesced"))).toBe(await counter(subject(run, "alone")));
        },
      ),
      { numRuns: 25 },
    );
  });
});
