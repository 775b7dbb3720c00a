/**
 * Requests held in progress, for the tests of the per-company cap
 * (docs/decisions/0013) and of the graceful stop: a `POST /debts` whose body
 * is sent only in part is admitted (admission comes before the body is read)
 * and then waits, holding its place, until `finish` sends the rest.
 */
import { request as httpRequest } from "node:http";
import { endpoints } from "@dc/contract";
import type { Database } from "@dc/db";
import type { Kysely } from "kysely";

export interface HeldRequest {
  /** The status and body of the answer, once the rest of the body was sent. */
  readonly response: Promise<{ status: number; body: string }>;
  /** Sends the rest of the body (once; later calls do nothing). */
  readonly finish: () => void;
}

/** A createDebt of `internalId` to the api at `apiUrl`, whose body is sent only in part until `finish` is called. */
export const heldCreate = (apiUrl: string, token: string, internalId: string): HeldRequest => {
  const body = JSON.stringify({
    firstname: "Held",
    lastname: "Open",
    email: "held@example.com",
    amount: 10,
    currency: "EUR",
    internal_id: internalId,
  });
  const url = new URL(`${apiUrl}${endpoints.createDebt.path}`);
  let answered: (value: { status: number; body: string }) => void = () => {};
  let failed: (error: unknown) => void = () => {};
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    answered = resolve;
    failed = reject;
  });
  const request = httpRequest(
    {
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
      },
    },
    (incoming) => {
      let text = "";
      incoming.on("data", (chunk: Buffer) => (text += chunk.toString()));
      incoming.on("end", () => answered({ status: incoming.statusCode ?? 0, body: text }));
    },
  );
  request.on("error", failed);
  request.write(body.slice(0, 10));
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    request.end(body.slice(10));
  };
  return { response, finish };
};

/**
 * Waits until `count` createDebt requests of the company have been admitted:
 * admission counts them in `rate_limit_counters`. (A probe request would take
 * a place of the cap itself, and could push a held request out.)
 */
export const admittedCreates = async (db: Kysely<Database>, companyId: number, count: number): Promise<void> => {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const counter = await db
      .selectFrom("rate_limit_counters")
      .select("count")
      .where("key", "=", `company:${companyId}:createDebt`)
      .executeTakeFirst();
    if ((counter?.count ?? 0) >= count) return;
    if (Date.now() > deadline)
      throw new Error(`company ${companyId}: ${counter?.count ?? 0} of ${count} requests admitted`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** Gives an admitted request time to take its place of the cap (or a stop time to begin). */
export const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 300));
