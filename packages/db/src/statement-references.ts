/**
 * Every reference the schema enforces with triggers instead of a foreign key
 * (checked once per statement: a webhook delivery's attempts,
 * docs/decisions/0021), as the migration that declares it exports it. A
 * foreign key is in `pg_constraint`; these are only here. The catalog test
 * (packages/db/test/reference-indexes.test.ts) reads both and requires, for
 * each, an index on the child that a delete of the parent can use.
 */
import { statementReferences as deliveryAttempts } from "./migrations/0016-retention.ts";

export interface StatementReference {
  readonly child: string;
  /** The child's columns a delete (or key change) of the parent looks its rows up by. */
  readonly columns: ReadonlyArray<string>;
  readonly parent: string;
}

export const statementReferences: ReadonlyArray<StatementReference> = [...deliveryAttempts];
