/**
 * A consumer's TypeScript, type-checked against the installed package's
 * declarations (test/consumer-install.test.ts copies it into a project
 * outside the repository and runs `tsc --noEmit` there). Each
 * `@ts-expect-error` proves a type is precise rather than `any`: were the
 * declarations of `@dc/client` or of `@dc/domain` behind them unresolved,
 * the directive would be unused and tsc would fail.
 */
import { createClient, type ClientError, snapshotRowErrors, type SnapshotRow } from "@dc/client";

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

export const row: SnapshotRow = { internal_id: "ACC-1", remaining_amount: 10, currency: "EUR" };
// @ts-expect-error -- remaining_amount is a number
export const wrongRow: SnapshotRow = { internal_id: "ACC-1", remaining_amount: "10", currency: "EUR" };

// `snapshotRowErrors` returns the domain's `Snapshot.RowError`: typed only if @dc/domain's declarations resolve.
const firstError = snapshotRowErrors([row])[0];
export const field: string | undefined = firstError?.field;
// @ts-expect-error -- RowError has no `column`
export const column: unknown = firstError?.column;

/** A list filter typed as the document declares it: `created_after` is a date or date-time string. */
export const debtsSince = (since: string) =>
  api.GET("/external-api/v1/debts", { params: { query: { created_after: since, created_before: "2026-11-21" } } });
export const debtsSinceDate = () =>
  // @ts-expect-error -- created_after is a string (openapi-fetch sends a Date as nothing: the filter would be dropped)
  api.GET("/external-api/v1/debts", { params: { query: { created_after: new Date() } } });
