/**
 * A consumer's TypeScript, type-checked against the installed package's
 * declarations (test/consumer-install.test.ts copies it into a project
 * outside the repository and runs `tsc --noEmit` there). Each
 * `@ts-expect-error` proves a type is precise rather than `any`: were the
 * declarations of `@dc/client` unresolved, the directive would be unused and
 * tsc would fail. It uses the main entry only, so it type-checks with
 * `@dc/domain` absent.
 */
import { createClient, type ClientError } from "@dc/client";

const api = createClient({ baseUrl: "https://api.example.com", clientId: "dcc_example", clientSecret: "dcs_example" });

/** A typed call: path, parameters and `data` come from the OpenAPI document. */
export const debtStatus = async (id: string): Promise<string> => {
  const result = await api.GET("/external-api/v1/debts/{id}", { params: { path: { id } } });
  if (result.error) return errorKind(result.error);
  return result.data.data.status;
};

const errorKind = (error: ClientError): ClientError["kind"] => error.kind;

// @ts-expect-error -- a path the document does not declare
export const unknownPath = () => api.GET("/external-api/v1/nowhere");

/** A list filter typed as the document declares it: `created_after` is a date or date-time string. */
export const debtsSince = (since: string) =>
  api.GET("/external-api/v1/debts", { params: { query: { created_after: since, created_before: "2026-11-21" } } });
export const debtsSinceDate = () =>
  // @ts-expect-error -- created_after is a string (openapi-fetch sends a Date as nothing: the filter would be dropped)
  api.GET("/external-api/v1/debts", { params: { query: { created_after: new Date() } } });

/** Request options are checked exactly: a misspelled field or option does not compile. */
export const createDebt = () =>
  api.POST("/external-api/v1/debts", { body: { firstname: "Jane", lastname: "Doe", amount: 120.5, currency: "EUR" } });
export const createDebtMisspelled = () =>
  // @ts-expect-error -- `firstnme` is not a field of the body
  api.POST("/external-api/v1/debts", { body: { firstnme: "Jane", lastname: "Doe", amount: 120.5, currency: "EUR" } });
export const createBatchMisspelled = () =>
  api.POST("/external-api/v1/debts/batch", {
    // @ts-expect-error -- `frstname` is not a field of a batch entry
    body: { debts: [{ amount: 80, currency: "EUR", frstname: "Ana" }] },
  });
export const listMisspelledOption = () =>
  // @ts-expect-error -- `signl` is not an option
  api.GET("/external-api/v1/debts", { params: { query: { limit: 10 } }, signl: AbortSignal.timeout(1000) });
