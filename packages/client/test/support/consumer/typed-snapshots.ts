/**
 * A consumer's TypeScript that sends snapshots, type-checked against the
 * installed `@dc/client/snapshots` and `@dc/domain` declarations
 * (test/consumer-install.test.ts runs `tsc --noEmit` on it once the domain
 * is installed). Each `@ts-expect-error` proves a type is precise rather
 * than `any`.
 */
import { snapshotRowErrors, type SnapshotRow } from "@dc/client/snapshots";

export const row: SnapshotRow = { internal_id: "ACC-1", remaining_amount: 10, currency: "EUR" };
// @ts-expect-error -- remaining_amount is a number
export const wrongRow: SnapshotRow = { internal_id: "ACC-1", remaining_amount: "10", currency: "EUR" };

// `snapshotRowErrors` returns the domain's `Snapshot.RowError`: typed only if @dc/domain's declarations resolve.
const firstError = snapshotRowErrors([row])[0];
export const field: string | undefined = firstError?.field;
// @ts-expect-error -- RowError has no `column`
export const column: unknown = firstError?.column;
