/**
 * The per-company cap on requests in progress (docs/decisions/0013), swept
 * over every bearer-protected operation of the contract, found by walking
 * `endpoints` (an operation added later is covered without touching this
 * file). One api capped at 1 request per company holds one createDebt of
 * company "Capped" in progress, its body sent only in part (the body is read
 * after admission). Every protected operation sent by "Capped" meanwhile,
 * with a token holding every scope, dummy path parameters and a body of its
 * content type, must answer exactly the contract's 429
 * too_many_concurrent_requests with `Retry-After: 1`, read through the
 * OpenAPI document, and write nothing: the cap refuses after admission and
 * before the path, query and body are read. Admission itself advances the
 * company's rate-limit counter (documented in 0013), which is not tenant data.
 * Another company is served meanwhile, and "Capped" is admitted again once
 * the held request is answered: the refusal is about the cap.
 */
import { allScopes, endpoints } from "@dc/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { type ProtectedOperation, protectedOperations, sendWithDummies } from "./support/protected-operations.ts";
import { admittedCreates, heldCreate, type HeldRequest, settle } from "./support/held-requests.ts";
import { type Fingerprint, fingerprint, jobCount } from "./support/isolation/fingerprint.ts";

const t = await startTestApi();
const PROFILE = endpoints.getCompanyProfile.path;

/** The number of bearer-protected operations in the contract when this sweep was written. */
const PROTECTED_OPERATIONS_WHEN_WRITTEN = 45;

const tooManyConcurrentRequests = {
  error: true,
  message: "Too many concurrent requests",
  code: 429,
  error_code: "too_many_concurrent_requests",
};

let capped: Awaited<ReturnType<typeof t.startAnotherApi>> | undefined;
let held: HeldRequest | undefined;
let cappedToken = "";
let otherToken = "";
let cappedCompanyId = 0;
/** What "Capped" holds and the job queue, once the held request was admitted (and before its body arrived). */
let before: { rows: Fingerprint; jobs: number } | undefined;

const stored = async () => ({ rows: await fingerprint(t.db, [cappedCompanyId]), jobs: await jobCount(t.db) });

const send = (operation: ProtectedOperation, token: string) => sendWithDummies(capped!.url, operation, token);

beforeAll(async () => {
  const cappedTenant = await t.tenant("Capped");
  cappedToken = await t.token(cappedTenant, allScopes.join(" "));
  otherToken = await t.token(await t.tenant("Other"), allScopes.join(" "));
  const { id } = await t.db.selectFrom("companies").select("id").where("name", "=", "Capped").executeTakeFirstOrThrow();
  cappedCompanyId = Number(id);
  capped = await t.startAnotherApi({ environment: { MAX_CONCURRENT_REQUESTS_PER_COMPANY: "1" } });
  held = heldCreate(capped.url, cappedToken, "held-during-sweep");
  await admittedCreates(t.db, cappedCompanyId, 1);
  await settle();
  before = await stored();
});

afterAll(async () => {
  // Always released, so the capped api can stop (it waits for requests in progress).
  held?.finish();
  await held?.response.catch(() => undefined);
  await capped?.stop();
});

describe("cap on requests in progress, swept over the contract", () => {
  it("covers the contract's protected operations", () => {
    const operationIds = protectedOperations.map((operation) => operation.operationId);
    expect(operationIds).toContain("getCompanyProfile");
    expect(operationIds).toContain("createDebt");
    expect(operationIds.length).toBeGreaterThanOrEqual(PROTECTED_OPERATIONS_WHEN_WRITTEN);
  });

  describe.each(protectedOperations)("$operationId: $method $path", (operation) => {
    it("refuses the capped company with exactly the contract's 429 too_many_concurrent_requests", async () => {
      const response = await send(operation, cappedToken);
      expect(response.status, `${operation.method} ${operation.path} answered ${response.status}`).toBe(429);
      expect(response.headers.get("retry-after")).toBe("1");
      // Admitted and counted before the cap refused it: the answer carries the budget's headers.
      if (operation.rateLimited) {
        for (const name of ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"]) {
          expect(response.headers.get(name), `${name} on ${operation.method} ${operation.path}`).toMatch(/^\d+$/);
        }
      }
      // expectContract also holds that the operation documents this 429 among its examples.
      expect(await expectContract(response, operation.method, operation.path)).toEqual(tooManyConcurrentRequests);
    });
  });

  it("wrote nothing for the refused requests: the capped company's rows and the job queue are as they were", async () => {
    expect(await stored()).toEqual(before);
  });

  it("serves another company meanwhile, while the capped company is still refused", async () => {
    const other = await fetch(`${capped!.url}${PROFILE}`, { headers: { authorization: `Bearer ${otherToken}` } });
    expect(other.status).toBe(200);
    await expectContract(other, "get", PROFILE);
    const still = await fetch(`${capped!.url}${PROFILE}`, { headers: { authorization: `Bearer ${cappedToken}` } });
    expect(still.status).toBe(429);
    expect(await expectContract(still, "get", PROFILE)).toEqual(tooManyConcurrentRequests);
  });

  it("admits the capped company again once the held request is answered", async () => {
    held!.finish();
    expect((await held!.response).status).toBe(201);
    const again = await fetch(`${capped!.url}${PROFILE}`, { headers: { authorization: `Bearer ${cappedToken}` } });
    expect(again.status).toBe(200);
    await expectContract(again, "get", PROFILE);
    // The held request's write landed: the fingerprint does see a write.
    expect((await stored()).rows).not.toEqual(before!.rows);
  });
});
