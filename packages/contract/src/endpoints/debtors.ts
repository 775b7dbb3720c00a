/** Debtors (contract 2.10 and 4.8; fields chosen in docs/decisions/0158). */
import { Schema } from "effect";
import { API_PREFIX, endpoint } from "../endpoint.ts";
import { DataEnvelope, ListEnvelope } from "../envelopes.ts";
import { errorCases, protectedErrors } from "../errors.ts";
import { IsoOffsetDateTime, PlainDate } from "../formats.ts";
import { EncryptedId } from "../ids.ts";
import { PaginationQuery } from "../pagination.ts";
import { pathParams } from "./request-parts.ts";

export const debtorMessages = { retrieved: "Debtor retrieved successfully", notFound: "Debtor not found" } as const;

const Text = Schema.NullOr(Schema.String);

export const Debtor = Schema.Struct({
  id: EncryptedId("debtor"),
  debtor_reference: Text.annotations({ description: "The client's reference for the debtor" }),
  civility: Text,
  firstname: Text,
  lastname: Text,
  email: Text,
  phone: Text,
  birthdate: Schema.NullOr(PlainDate),
  debtor_company: Text,
  address: Text,
  street_address: Text,
  street_number: Text,
  postal_code: Text,
  city: Text,
  country: Text,
  debt_ids: Schema.Array(EncryptedId("debt")).annotations({ description: "The debtor's debts, oldest first" }),
  debts_count: Schema.Int,
  created_at: IsoOffsetDateTime,
  updated_at: IsoOffsetDateTime,
}).annotations({ identifier: "Debtor" });

export const listDebtors = endpoint({
  operationId: "listDebtors",
  method: "get",
  path: `${API_PREFIX}/debtors`,
  scope: "debtors:read",
  tags: ["Debtors"],
  summary: "List debtors",
  description: "The company's debtors, oldest first, each with the ids of its debts.",
  query: PaginationQuery,
  success: {
    status: 200,
    description: "A page of debtors",
    schema: ListEnvelope(Debtor).annotations({ identifier: "DebtorList" }),
  },
  errors: [...protectedErrors("debtors:read"), errorCases.validation],
  rateLimit: "read",
});

export const getDebtor = endpoint({
  operationId: "getDebtor",
  method: "get",
  path: `${API_PREFIX}/debtors/{id}`,
  scope: "debtors:read",
  tags: ["Debtors"],
  summary: "Read a debtor",
  description: "One debtor of the company with the ids of its debts.",
  params: pathParams(Schema.Struct({ id: Schema.String.annotations({ description: "Encrypted debtor id" }) })),
  success: {
    status: 200,
    description: "The debtor",
    schema: DataEnvelope(Debtor).annotations({ identifier: "DebtorResponse" }),
  },
  errors: [...protectedErrors("debtors:read"), errorCases.notFound(debtorMessages.notFound)],
  rateLimit: "read",
});
