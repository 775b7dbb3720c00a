/**
 * The person columns debtors and debts both hold (`PersonColumns`), each
 * with the PostgreSQL element type of its `unnest` array parameter: the one
 * list by which the set-based debt insert and debtor upsert write them, and
 * from which every other list of the person fields is derived.
 */
import type { PersonColumns } from "../schema.ts";

const elementTypes: Readonly<Record<keyof PersonColumns, "text" | "date">> = {
  civility: "text",
  firstname: "text",
  lastname: "text",
  email: "text",
  phone: "text",
  birthdate: "date",
  debtor_company: "text",
  address: "text",
  street_address: "text",
  street_number: "text",
  postal_code: "text",
  city: "text",
  country: "text",
};

/** `[column, element type]` of every person column, in a fixed order. */
export const personColumnTypes = Object.entries(elementTypes) as ReadonlyArray<
  readonly [keyof PersonColumns, "text" | "date"]
>;

/** The person column names, in the same fixed order. */
export const personColumns: ReadonlyArray<keyof PersonColumns> = personColumnTypes.map(([column]) => column);

/** The person columns of `row` (a debt or a debtor), and nothing else. */
export const personColumnsOf = (row: PersonColumns): PersonColumns =>
  Object.fromEntries(personColumns.map((column) => [column, row[column]])) as unknown as PersonColumns;
