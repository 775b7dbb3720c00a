/**
 * The creditor's wire form (contract 2.2): camelCase fields, the encrypted
 * id, and the columns every creditor operation selects.
 */
import type { Creditor } from "@dc/db";
import type { Ids } from "../../ids.ts";

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

export const presentCreditor = (ids: Ids, row: CreditorRow) => ({
  id: ids.encode("creditor", row.id),
  name: row.name,
  email: row.email,
  phone: row.phone,
  address: row.address,
  city: row.city,
  postalCode: row.postal_code,
  country: row.country,
  registrationNumber: row.registration_number,
  taxNumber: row.tax_number,
  contactPerson: row.contact_person,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** Body field (camelCase) -> column, for the writable fields of contract 4.4. */
export const writableColumns = {
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

export type WritableField = keyof typeof writableColumns;

/** The columns a body sets: absent fields are skipped, `null` clears. */
export const columnsOf = (body: Partial<Record<WritableField, string | null | undefined>>) => {
  const columns: Partial<Record<(typeof writableColumns)[WritableField], string | null>> = {};
  for (const [field, column] of Object.entries(writableColumns) as Array<
    [WritableField, (typeof writableColumns)[WritableField]]
  >) {
    const value = body[field];
    if (value !== undefined) columns[column] = value;
  }
  return columns;
};
