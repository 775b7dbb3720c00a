import { useTestDatabase } from "@dc/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { purgeExpired } from "../src/tasks/purge-expired.ts";
import {
  hoursFrom,
  insertCode,
  insertCounter,
  insertGrant,
  insertIdempotencyKey,
  insertOwner,
  insertToken,
  remainingIds,
} from "./oauth-fixtures.ts";

const { db } = await useTestDatabase();

// Far from the real date, so a query that used the database's now() instead of the cutoff would purge differently.
const now = new Date("2030-06-15T12:00:00.000Z");
const cutoff = hoursFrom(now, -24);

describe("purgeExpired", () => {
  const ids: Record<string, number> = {};
  const id = (name: string): number => {
    const value = ids[name];
    if (value === undefined) throw new Error(`no fixture ${name}`);
    return value;
  };

  beforeAll(async () => {
    const owner = await insertOwner(db);
    ids["grantActive"] = await insertGrant(db, owner, hoursFrom(now, -240));
    ids["grantOnlyOldTokens"] = await insertGrant(db, owner, hoursFrom(now, -240));
    ids["grantRecentOrphan"] = await insertGrant(db, owner, hoursFrom(now, -1));
    ids["grantBoundaryOrphan"] = await insertGrant(db, owner, cutoff);
    ids["grantOldOrphanRevoked"] = await insertGrant(db, owner, hoursFrom(now, -120), hoursFrom(now, -96));
    ids["grantInGrace"] = await insertGrant(db, owner, hoursFrom(now, -240), hoursFrom(now, -2));
    ids["grantCodeInGrace"] = await insertGrant(db, owner, hoursFrom(now, -72));
    ids["grantOldCode"] = await insertGrant(db, owner, hoursFrom(now, -72));

    ids["accessValid"] = await insertToken(db, "oauth_access_tokens", owner, id("grantActive"), hoursFrom(now, 1));
    ids["accessBoundary"] = await insertToken(db, "oauth_access_tokens", owner, id("grantActive"), cutoff);
    ids["accessOld"] = await insertToken(db, "oauth_access_tokens", owner, id("grantOnlyOldTokens"), hoursFrom(now, -48));
    ids["accessInGrace"] = await insertToken(db, "oauth_access_tokens", owner, id("grantInGrace"), hoursFrom(now, -1));

    ids["refreshValid"] = await insertToken(db, "oauth_refresh_tokens", owner, id("grantActive"), hoursFrom(now, 720));
    ids["refreshInGrace"] = await insertToken(db, "oauth_refresh_tokens", owner, id("grantActive"), hoursFrom(now, -23));
    ids["refreshOld"] = await insertToken(db, "oauth_refresh_tokens", owner, id("grantOnlyOldTokens"), hoursFrom(now, -72));
    ids["refreshJustPastGrace"] = await insertToken(db, "oauth_refresh_tokens", owner, id("grantActive"), hoursFrom(now, -25));

    ids["codeValid"] = await insertCode(db, owner, null, hoursFrom(now, 0.1));
    ids["codeInGrace"] = await insertCode(db, owner, id("grantCodeInGrace"), hoursFrom(now, -0.2));
    ids["codeOld"] = await insertCode(db, owner, null, hoursFrom(now, -48));
    ids["codeOldWithGrant"] = await insertCode(db, owner, id("grantOldCode"), hoursFrom(now, -30));

    await insertCounter(db, "expired-just-now", hoursFrom(now, -1 / 3600));
    await insertCounter(db, "expired-long-ago", hoursFrom(now, -48));
    await insertCounter(db, "expires-exactly-now", now);
    await insertCounter(db, "still-counting", hoursFrom(now, 1 / 60));
  });

  it("deletes exactly the rows past expiry and grace, and counts them per table", async () => {
    expect(await purgeExpired(db, now)).toEqual({
      oauth_access_tokens: 1,
      oauth_refresh_tokens: 2,
      oauth_authorization_codes: 2,
      rate_limit_counters: 2,
      oauth_grants: 3,
      oauth_login_sessions: 0,
      idempotency_keys: 0,
    });

    expect(await remainingIds(db, "oauth_access_tokens")).toEqual(
      [id("accessValid"), id("accessBoundary"), id("accessInGrace")].sort((a, b) => a - b),
    );
    expect(await remainingIds(db, "oauth_refresh_tokens")).toEqual(
      [id("refreshValid"), id("refreshInGrace")].sort((a, b) => a - b),
    );
    expect(await remainingIds(db, "oauth_authorization_codes")).toEqual(
      [id("codeValid"), id("codeInGrace")].sort((a, b) => a - b),
    );
    expect(await remainingIds(db, "oauth_grants")).toEqual(
      [id("grantActive"), id("grantRecentOrphan"), id("grantBoundaryOrphan"), id("grantInGrace"), id("grantCodeInGrace")].sort(
        (a, b) => a - b,
      ),
    );
    const counters = await db.selectFrom("rate_limit_counters").select("key").orderBy("key").execute();
    expect(counters).toEqual([{ key: "expires-exactly-now" }, { key: "still-counting" }]);
  });

  it("finds nothing more on a second run at the same time", async () => {
    expect(await purgeExpired(db, now)).toEqual({
      oauth_access_tokens: 0,
      oauth_refresh_tokens: 0,
      oauth_authorization_codes: 0,
      rate_limit_counters: 0,
      oauth_grants: 0,
      oauth_login_sessions: 0,
      idempotency_keys: 0,
    });
  });

  it("purges the grace-day rows once the clock has moved past it", async () => {
    expect(await purgeExpired(db, hoursFrom(now, 25))).toEqual({
      // accessBoundary and accessInGrace (accessValid expired at now+1h, still within its grace)
      oauth_access_tokens: 2,
      oauth_refresh_tokens: 1,
      // codeValid expired at now+6min, codeInGrace at now-12min
      oauth_authorization_codes: 2,
      rate_limit_counters: 2,
      // grantInGrace and grantCodeInGrace lost their last rows; grantRecentOrphan and grantBoundaryOrphan aged past a day
      oauth_grants: 4,
      oauth_login_sessions: 0,
      idempotency_keys: 0,
    });
    expect(await remainingIds(db, "oauth_access_tokens")).toEqual([id("accessValid")]);
    expect(await remainingIds(db, "oauth_refresh_tokens")).toEqual([id("refreshValid")]);
    expect(await remainingIds(db, "oauth_authorization_codes")).toEqual([]);
    expect(await remainingIds(db, "oauth_grants")).toEqual([id("grantActive")]);
  });

  it("purges consent-page login sessions past their expiry, and only those", async () => {
    const company = await db.insertInto("companies").values({ name: "Sessions Co" }).returning("id").executeTakeFirstOrThrow();
    const user = await db
      .insertInto("users")
      .values({ company_id: company.id, email: "sessions@example.com", password_hash: "x" })
      .returning("id")
      .executeTakeFirstOrThrow();
    const session = (hash: string, expiresAt: Date) => ({
      company_id: company.id,
      user_id: user.id,
      token_hash: Buffer.from(hash),
      expires_at: expiresAt,
    });
    await db
      .insertInto("oauth_login_sessions")
      .values([session("expired", hoursFrom(now, -2)), session("live", hoursFrom(now, 0.5))])
      .execute();
    const counts = await purgeExpired(db, now);
    expect(counts.oauth_login_sessions).toBe(1);
    const left = await db.selectFrom("oauth_login_sessions").select("token_hash").execute();
    expect(left.map((row) => row.token_hash.toString())).toEqual(["live"]);
  });

  it("deletes Idempotency-Key records at their expiry, and only those, whatever their company", async () => {
    const companies = await db
      .insertInto("companies")
      .values([{ name: "Keys One" }, { name: "Keys Two" }])
      .returning("id")
      .execute();
    const [one, two] = companies.map((company) => company.id);
    await insertIdempotencyKey(db, one!, "long-gone", hoursFrom(now, -48));
    await insertIdempotencyKey(db, one!, "expires-exactly-now", now);
    await insertIdempotencyKey(db, one!, "still-live", hoursFrom(now, 1 / 3600));
    await insertIdempotencyKey(db, two!, "long-gone", hoursFrom(now, -2));
    await insertIdempotencyKey(db, two!, "still-live", hoursFrom(now, 23));
    const counts = await purgeExpired(db, now);
    expect(counts.idempotency_keys).toBe(3);
    const left = await db
      .selectFrom("idempotency_keys")
      .select(["company_id", "idempotency_key"])
      .orderBy("company_id")
      .orderBy("idempotency_key")
      .execute();
    expect(left).toEqual([
      { company_id: one, idempotency_key: "still-live" },
      { company_id: two, idempotency_key: "still-live" },
    ]);
  });
});
