/**
 * Creditors (contract 2.2 and 4.4): list, read (with debt totals, nested at
 * `data.data`), create, and update through PUT or PATCH with the same
 * partial semantics. Creditor timestamps use `YYYY-MM-DD HH:mm:ss` (UTC).
 */
import { Contact } from "@dc/domain";
import { Schema } from "effect";
import { API_PREFIX, DEFAULT_JSON_BODY_BYTES, endpoint } from "../endpoint.ts";
import { DataEnvelope, ListEnvelope } from "../envelopes.ts";
import { errorCases, jsonBodyErrors, messages, protectedErrors } from "../errors.ts";
import { CreditorDateTime } from "../formats.ts";
import { EncryptedId } from "../ids.ts";
import { PaginationQuery } from "../pagination.ts";
import { pathParams } from "./request-parts.ts";

const nullableText = (description: string) => Schema.NullOr(Schema.String).annotations({ description });

export const Creditor = Schema.Struct({
  id: EncryptedId("creditor"),
  name: Schema.String,
  email: nullableText("Contact e-mail address"),
  phone: nullableText("Contact phone number"),
  address: nullableText("Street address"),
  city: nullableText("City"),
  postalCode: nullableText("Postal code"),
  country: nullableText("Country code or name"),
  registrationNumber: nullableText("Company registration number"),
  taxNumber: nullableText("Tax (VAT) number"),
  contactPerson: nullableText("Main contact"),
  createdAt: CreditorDateTime,
  updatedAt: CreditorDateTime,
}).annotations({ identifier: "Creditor", description: "A creditor; timestamps are UTC" });
export type Creditor = typeof Creditor.Type;

export const CreditorWithTotals = Schema.Struct({
  ...Creditor.fields,
  totalDebts: Schema.Int.annotations({ description: "Number of debts of the creditor (credit notes included)" }),
  totalAmount: Schema.Number.annotations({
    description:
      "Sum of the remaining balances of the creditor's debts, in major units. Balances in different currencies are " +
      "added as plain numbers; `totalAmountByCurrency` gives the exact split",
  }),
  totalAmountByCurrency: Schema.Record({ key: Schema.String, value: Schema.Number }).annotations({
    description: "Remaining balances per ISO 4217 currency code, in major units",
  }),
}).annotations({ identifier: "CreditorWithTotals" });
export type CreditorWithTotals = typeof CreditorWithTotals.Type;

const MAX_TEXT = 255;
const text = (description: string, max = MAX_TEXT) =>
  Schema.String.pipe(Schema.maxLength(max, { message: () => `must be at most ${max} characters` })).annotations({
    description,
  });
const clearable = <A>(schema: Schema.Schema<A, string>) => Schema.optional(Schema.NullOr(schema));

const CreditorName = Schema.String.pipe(
  Schema.filter((value) => value.trim() !== "" || "must not be empty"),
  Schema.maxLength(MAX_TEXT, { message: () => `must be at most ${MAX_TEXT} characters` }),
).annotations({ description: "Creditor name (1 to 255 characters)" });

/** The ten writable fields of contract 4.4; `null` clears an optional field. */
const writableFields = {
  email: clearable(Contact.Email),
  phone: clearable(text("Contact phone number", 64)),
  address: clearable(text("Street address", 500)),
  city: clearable(text("City")),
  postalCode: clearable(text("Postal code", 32)),
  country: clearable(text("Country code or name", 100)),
  registrationNumber: clearable(text("Company registration number", 100)),
  taxNumber: clearable(text("Tax (VAT) number", 100)),
  contactPerson: clearable(text("Main contact")),
};

export const CreateCreditorBody = Schema.Struct({ name: CreditorName, ...writableFields }).annotations({
  identifier: "CreateCreditorBody",
  description: "`name` is required; every other field is optional",
});
export type CreateCreditorBody = typeof CreateCreditorBody.Type;

export const UpdateCreditorBody = Schema.Struct({ name: Schema.optional(CreditorName), ...writableFields }).annotations(
  {
    identifier: "UpdateCreditorBody",
    description:
      "Any subset of the ten fields; absent fields are unchanged, `null` clears an optional field, `email` must be a " +
      "valid address. Unknown keys are rejected.",
  },
);
export type UpdateCreditorBody = typeof UpdateCreditorBody.Type;

export const CreditorIdParams = pathParams(
  Schema.Struct({ id: Schema.String.annotations({ description: "Encrypted creditor id" }) }),
);

const notFound = errorCases.notFound(messages.creditorNotFound);
const bodyErrors = jsonBodyErrors();

export const listCreditors = endpoint({
  operationId: "listCreditors",
  method: "get",
  path: `${API_PREFIX}/creditors`,
  scope: "creditors:read",
  tags: ["Creditors"],
  summary: "List creditors",
  description: "The creditors of the token's company, oldest first, paginated.",
  query: PaginationQuery,
  success: {
    status: 200,
    description: "A page of creditors",
    schema: ListEnvelope(Creditor).annotations({ identifier: "CreditorListResponse" }),
  },
  errors: [...protectedErrors("creditors:read"), errorCases.validation],
  rateLimit: "read",
});

export const getCreditor = endpoint({
  operationId: "getCreditor",
  method: "get",
  path: `${API_PREFIX}/creditors/{id}`,
  scope: "creditors:read",
  tags: ["Creditors"],
  summary: "Read a creditor",
  description:
    "One creditor with `totalDebts` and `totalAmount` (sum of remaining balances, major units). The creditor is " +
    "nested one level deeper, at `data.data`.",
  params: CreditorIdParams,
  success: {
    status: 200,
    description: "The creditor with its totals",
    schema: DataEnvelope(Schema.Struct({ data: CreditorWithTotals })).annotations({ identifier: "CreditorResponse" }),
  },
  errors: [...protectedErrors("creditors:read"), notFound],
  rateLimit: "read",
});

export const createCreditor = endpoint({
  operationId: "createCreditor",
  method: "post",
  path: `${API_PREFIX}/creditors`,
  scope: "creditors:write",
  tags: ["Creditors"],
  summary: "Create a creditor",
  description: "Creates a creditor of the token's company. `name` is required.",
  body: { contentType: "application/json", schema: CreateCreditorBody, maxBytes: DEFAULT_JSON_BODY_BYTES },
  success: {
    status: 201,
    description: "The created creditor; message `Creditor created successfully`",
    schema: DataEnvelope(Creditor).annotations({ identifier: "CreditorMutationResponse" }),
  },
  idempotencyKey: true,
  errors: [...protectedErrors("creditors:write"), ...bodyErrors, errorCases.idempotencyKeyReused],
  rateLimit: "write",
});

const updateEndpoint = <const OperationId extends string>(operationId: OperationId, method: "put" | "patch") =>
  endpoint({
    operationId,
    method,
    path: `${API_PREFIX}/creditors/{id}`,
    scope: "creditors:write",
    tags: ["Creditors"],
    summary: method === "put" ? "Update a creditor" : "Update a creditor (PATCH)",
    description:
      "Updates any subset of the creditor's ten writable fields. PUT and PATCH behave the same: " +
      "absent fields are left unchanged.",
    params: CreditorIdParams,
    body: { contentType: "application/json", schema: UpdateCreditorBody, maxBytes: DEFAULT_JSON_BODY_BYTES },
    success: {
      status: 200,
      description: "The updated creditor; message `Creditor updated successfully`",
      schema: DataEnvelope(Creditor).annotations({ identifier: "CreditorMutationResponse" }),
    },
    errors: [...protectedErrors("creditors:write"), ...bodyErrors, notFound],
    rateLimit: "write",
    // One contract operation (9.4: the update accepts PUT and PATCH), so one budget.
    rateLimitBudget: "updateCreditor",
  });

export const updateCreditor = updateEndpoint("updateCreditor", "put");
export const patchCreditor = updateEndpoint("patchCreditor", "patch");

export const creditorMessages = {
  created: "Creditor created successfully",
  updated: "Creditor updated successfully",
  retrieved: "Creditor retrieved successfully",
} as const;
