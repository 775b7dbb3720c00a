/**
 * Payments recorded on a debt (contract 2.7 and 4.5 "List payments"),
 * including the installment payments of a grouped debt's shared plan.
 */
import { Schema } from "effect";
import { API_PREFIX, endpoint } from "../endpoint.ts";
import { ListEnvelope } from "../envelopes.ts";
import { errorCases, messages, protectedErrors } from "../errors.ts";
import { IsoOffsetDateTime } from "../formats.ts";
import { EncryptedId } from "../ids.ts";
import { paginationFields } from "../pagination.ts";
import { DebtIdParams } from "./debts.ts";
import { queryParams } from "./request-parts.ts";

export const Payment = Schema.Struct({
  id: Schema.String.annotations({
    description: "Opaque UUID of the payment transaction",
    jsonSchema: { type: "string", format: "uuid" },
  }),
  debt_id: EncryptedId("debt").annotations({
    description: "The debt the payment was recorded on; for a grouped installment payment, the shared plan debt",
  }),
  installment_id: Schema.NullOr(EncryptedId("installment")),
  external_payment_id: Schema.NullOr(Schema.String).annotations({ description: "Partner payment id when supplied" }),
  provider: Schema.String.annotations({ description: "Partner label given at recording, or the internal provider" }),
  amount: Schema.Number.annotations({ description: "Major units of `currency`; negative for a balance increase" }),
  currency: Schema.String,
  status: Schema.String.annotations({ description: "succeeded, cancelled, refunded or adjustment" }),
  paid_at: IsoOffsetDateTime,
}).annotations({ identifier: "Payment", description: "A payment transaction" });
export type Payment = typeof Payment.Type;

export const DebtPaymentsQuery = queryParams(
  Schema.Struct({
    ...paginationFields,
    external_payment_id: Schema.optional(
      Schema.String.pipe(
        Schema.minLength(1, { message: () => "must not be empty" }),
        Schema.maxLength(255, { message: () => "must be at most 255 characters" }),
      ).annotations({ description: "Only the payment with this partner payment id" }),
    ),
  }),
);

export const listDebtPayments = endpoint({
  operationId: "listDebtPayments",
  method: "get",
  path: `${API_PREFIX}/debts/{id}/payments`,
  scope: "debts:read",
  tags: ["Debts"],
  summary: "List the payments of a debt",
  description:
    "The payments recorded on the debt, newest first, a page at a time (the filter applies before " +
    "pagination). Called through a grouped debt, the list also holds the installment payments recorded on the " +
    "group's shared plan debt; direct payments without installment are visible only on the debt they paid.",
  params: DebtIdParams,
  query: DebtPaymentsQuery,
  success: {
    status: 200,
    description: "A page of the payments",
    schema: ListEnvelope(Payment).annotations({ identifier: "PaymentListResponse" }),
  },
  errors: [...protectedErrors("debts:read"), errorCases.validation, errorCases.notFound(messages.debtNotFound)],
  rateLimit: "read",
});
