/**
 * JSON requests with a bearer token for the creditor and debt tests, and a
 * row counter to prove a refused request wrote nothing.
 */
import type { Database } from "@dc/db";
import type { Kysely } from "kysely";

type Requester = (path: string, init?: RequestInit) => Promise<Response>;

export const jsonApi = (request: Requester) => {
  const send = (
    method: string,
    path: string,
    token: string,
    body?: unknown,
    options: { readonly contentType?: string } = {},
  ) =>
    request(path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": options.contentType ?? "application/json" }),
      },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
  return {
    send,
    get: (path: string, token: string) => send("GET", path, token),
    post: (path: string, token: string, body: unknown, options?: { readonly contentType?: string }) =>
      send("POST", path, token, body, options),
    put: (path: string, token: string, body: unknown, options?: { readonly contentType?: string }) =>
      send("PUT", path, token, body, options),
    patch: (path: string, token: string, body: unknown, options?: { readonly contentType?: string }) =>
      send("PATCH", path, token, body, options),
    del: (path: string, token: string) => send("DELETE", path, token),
  };
};

/** Row counts of the tables the creditor and debt operations write. */
export const rowCounts = async (db: Kysely<Database>) => {
  const count = async (table: "creditors" | "debts" | "debtors" | "import_batches" | "followups" | "payments") =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    creditors: await count("creditors"),
    debts: await count("debts"),
    debtors: await count("debtors"),
    import_batches: await count("import_batches"),
    followups: await count("followups"),
    payments: await count("payments"),
  };
};

/** The 413 body of an operation whose body may hold `limitBytes` bytes (`payloadTooLargeMessage` in the contract). */
export const payloadTooLargeBody = (limitBytes: number) => ({
  error: true,
  code: 413,
  message: `Request body too large: the limit is ${limitBytes} bytes`,
  error_code: "payload_too_large",
});
