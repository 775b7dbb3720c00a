/**
 * Every reference the schema enforces with triggers instead of a foreign key
 * (checked once per statement: docs/decisions/0361, 0364, 0367, 0021), as
 * the migrations that declare them export it. A foreign key is in
 * `pg_constraint`; these are only here. The catalog test
 * (packages/db/test/reference-indexes.test.ts) reads both and requires, for
 * each, an index on the child that a delete of the parent can use.
 */
import { statementReferences as ledger } from "./migrations/0010-ledger-reference-checks.ts";
import { statementReferences as debts } from "./migrations/0011-debt-reference-checks.ts";
import { statementReferences as plansAndOutbox } from "./migrations/0013-references-checked-per-statement.ts";
import { statementReferences as deliveryAttempts } from "./migrations/0016-retention.ts";

export interface StatementReference {
  readonly child: string;
  /** The child's columns a delete (or key change) of the parent looks its rows up by. */
  readonly columns: ReadonlyArray<string>;
  readonly parent: string;
}

export const statementReferences: ReadonlyArray<StatementReference> = [
  ...ledger,
  ...debts,
  ...plansAndOutbox,
  ...deliveryAttempts,
];
