/** The creditor columns every creditor operation reads, and the ones a request may write. */
import type { Creditor } from "../../schema.ts";

export const creditorColumns = [
  "id",
  "name",
  "email",
  "phone",
  "address",
  "city",
  "postal_code",
  "country",
  "registration_number",
  "tax_number",
  "contact_person",
  "created_at",
  "updated_at",
] as const;

export type CreditorRow = Pick<Creditor, (typeof creditorColumns)[number]>;

/** The columns a request may set (contract 4.4); `null` clears one. */
export type CreditorFields = Partial<
  Record<
    | "name"
    | "email"
    | "phone"
    | "address"
    | "city"
    | "postal_code"
    | "country"
    | "registration_number"
    | "tax_number"
    | "contact_person",
    string | null
  >
>;
