/** The creditor's wire form (contract 2.2): camelCase fields and the encrypted id. */
import type { CreditorRow } from "@dc/db";
import type { DomainIds as Ids } from "@dc/db";

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
