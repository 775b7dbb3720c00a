/** The columns a creditor request body sets (contract 4.4): camelCase fields to columns. */
import type { CreditorFields } from "@dc/db";

/** Body field (camelCase) -> column, for the writable fields of contract 4.4. */
const writableColumns = {
  name: "name",
  email: "email",
  phone: "phone",
  address: "address",
  city: "city",
  postalCode: "postal_code",
  country: "country",
  registrationNumber: "registration_number",
  taxNumber: "tax_number",
  contactPerson: "contact_person",
} as const;

type WritableField = keyof typeof writableColumns;

/** The columns a body sets: absent fields are skipped, `null` clears. */
export const columnsOf = (body: Partial<Record<WritableField, string | null | undefined>>): CreditorFields => {
  const columns: CreditorFields = {};
  for (const [field, column] of Object.entries(writableColumns) as Array<
    [WritableField, (typeof writableColumns)[WritableField]]
  >) {
    const value = body[field];
    if (value !== undefined) columns[column] = value;
  }
  return columns;
};
