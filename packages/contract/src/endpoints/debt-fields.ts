/**
 * The debt resource of contract 2.3 as schemas: the fields a client may send
 * when creating or updating a debt, the debt as returned, and the e-mail
 * validation report of the create response. Shared by the single, batch and
 * update operations so the three cannot drift apart.
 */
import { Contact, Money } from "@dc/domain";
import { Schema } from "effect";
import { IsoOffsetDateTime, PlainDate } from "../formats.ts";
import { EncryptedId } from "../ids.ts";

const text = (max: number, description: string) =>
  Schema.String.pipe(Schema.maxLength(max, { message: () => `must be at most ${max} characters` })).annotations({
    description,
  });
const reference = (description: string) =>
  Schema.String.pipe(
    Schema.filter((value) => value.trim() !== "" || "must not be empty"),
    Schema.maxLength(255, { message: () => "must be at most 255 characters" }),
  ).annotations({ description });

/** Titles accepted in `civility` (docs/decisions/0103). */
export const civilities = ["Mr", "Mrs", "Ms", "Miss", "Mx", "Dr", "M.", "Mme", "Mlle"] as const;
export const Civility = Schema.Literal(...civilities).annotations({
  identifier: "Civility",
  message: () => ({ message: `must be one of: ${civilities.join(", ")}`, override: true }),
});

/** When the collection timeline starts for a debt put on it (docs/decisions/0103, 0600). */
export const timelineStartModes = ["immediate", "next_window", "due_date", "manual"] as const;
export const TimelineStartMode = Schema.Literal(...timelineStartModes).annotations({
  identifier: "TimelineStartMode",
  description:
    "When the debt's collection timeline starts, from its creation or the update that sets its `timeline_id`. " +
    "`immediate` (the default when unset): anchored now; the first step runs at the first instant the timeline's " +
    "window and the debtor's hours allow. `next_window`: anchored at the next start of the timeline's sending window. " +
    "`due_date`: anchored at the start of the window on `due_date`, or now when that date is past or unset. " +
    "`manual`: the debt is enrolled paused (reason `awaiting_start`) until `POST /debts/{id}/timeline/resume`; " +
    "to start on a date of your choosing, use `manual` and then pause with `until`. Every later step is due its " +
    "day offset after that anchor.",
  message: () => ({ message: `must be one of: ${timelineStartModes.join(", ")}`, override: true }),
});

export const MAX_METADATA_KEYS = 50;
export const MAX_METADATA_BYTES = 8 * 1024;

/**
 * Any JSON value. Documented with an explicit type list: effect's generic
 * "unknown" schema carries an `$id` that validators reject when it repeats.
 */
/** Any JSON value; the empty JSON Schema says exactly that. */
const AnyJson = Schema.Unknown.annotations({ description: "Any JSON value" });

export const Metadata = Schema.Record({ key: Schema.String, value: AnyJson })
  .pipe(
    Schema.filter(
      (value) =>
        (Object.keys(value).length <= MAX_METADATA_KEYS &&
          new TextEncoder().encode(JSON.stringify(value)).byteLength <= MAX_METADATA_BYTES) ||
        `must have at most ${MAX_METADATA_KEYS} keys and ${MAX_METADATA_BYTES} bytes of JSON`,
    ),
  )
  .annotations({
    description: `Free key/value object (at most ${MAX_METADATA_KEYS} keys, ${MAX_METADATA_BYTES} bytes as JSON)`,
    jsonSchema: { type: "object", additionalProperties: true, maxProperties: MAX_METADATA_KEYS },
  });

export const Amount = Schema.Number.pipe(
  Schema.filter((value) => (Number.isFinite(value) && value > 0) || "must be a number greater than 0"),
).annotations({
  description: "Amount in major units (12.34 EUR); at most the currency's number of decimals",
  jsonSchema: {
    type: "number",
    exclusiveMinimum: 0,
    examples: [125.5],
    description: "Amount in major units (12.34 EUR); at most the currency's number of decimals",
  },
});

const opt = <A, I>(schema: Schema.Schema<A, I>) => Schema.optional(Schema.NullOr(schema));

/** The optional fields shared by creation and update; `null` means "no value". */
const optionalFields = {
  firstname: opt(Contact.Name),
  lastname: opt(Contact.Name),
  civility: opt(Civility),
  phone: opt(Contact.Phone),
  email: opt(Contact.Email),
  birthdate: opt(PlainDate),
  object: opt(text(1000, "Description or reason of the debt")),
  internal_id: opt(reference("The client's own reference; unique per creditor")),
  invoice_reference: opt(reference("Invoice reference")),
  debtor_reference: opt(reference("The client's reference for the debtor; debts sharing it share a debtor")),
  invoice_date: opt(PlainDate),
  due_date: opt(PlainDate),
  address: opt(text(500, "Full address (legacy)")),
  street_address: opt(text(255, "Street")),
  street_number: opt(text(32, "Street number")),
  postal_code: opt(text(32, "Postal code")),
  city: opt(text(255, "City")),
  country: opt(text(100, "Country code or name")),
  iban: opt(text(64, "IBAN")),
  company: opt(text(255, "Creditor company name, for collection agencies collecting for other companies")),
  debtor_company: opt(text(255, "Debtor company, for B2B debts")),
  payment_link: opt(
    Schema.String.pipe(
      Schema.maxLength(2048, { message: () => "must be at most 2048 characters" }),
      Schema.pattern(/^https?:\/\/\S+$/, { message: () => "must be an http(s) URL" }),
    ).annotations({ description: "Custom payment URL" }),
  ),
  timeline_id: opt(
    Schema.String.annotations({ description: "Encrypted id of a timeline of the company (GET /timelines)" }),
  ),
  timeline_start_mode: opt(TimelineStartMode),
  metadata: opt(Metadata),
  accept_expensive_destination: opt(
    Schema.Boolean.annotations({ description: "Allow calls and SMS to costly destinations for this debt" }),
  ),
};

/** The body of POST /debts (contract 4.5 plus the optional `creditor_id`). */
export const createDebtFields = {
  creditor_id: Schema.optional(
    Schema.NullOr(Schema.String).annotations({
      description: "Encrypted creditor id; defaults to the company's first creditor",
    }),
  ),
  amount: Amount,
  currency: Money.CurrencyCode,
  credited_invoice_reference: Schema.optional(
    Schema.NullOr(
      reference("Makes the debt a credit note for this invoice_reference of the same creditor and currency"),
    ),
  ),
  ...optionalFields,
  detect_civility: Schema.optional(
    Schema.NullOr(Schema.Boolean).annotations({
      description: 'Move a leading title of firstname or lastname ("Mme Claire") into civility when civility is absent',
    }),
  ),
  validate_emails: Schema.optional(
    Schema.NullOr(Schema.Boolean).annotations({
      description: "Check the e-mail's syntax and domain (no network; never charged) and report it in email_validation",
    }),
  ),
};

export const CreateDebtBody = Schema.Struct(createDebtFields).annotations({
  identifier: "CreateDebtBody",
  description:
    "Required: `amount`, `currency`, and one of `lastname`, `firstname` or `debtor_company`. `null` is the same as " +
    "an absent field. Unknown keys are rejected.",
});
export type CreateDebtBody = typeof CreateDebtBody.Type;

const readOnly = (reason: string) =>
  Schema.optional(
    Schema.Never.annotations({
      message: () => `is read-only: ${reason}`,
      // No value is accepted; a `type` makes effect use this schema as is (its "never" carries a repeated `$id`).
      jsonSchema: { type: "null", not: {}, description: `Read-only: ${reason}` },
    }),
  );

/** PUT/PATCH body: any subset of the optional fields; `null` clears one. */
export const UpdateDebtBody = Schema.Struct({
  ...optionalFields,
  status: readOnly("the status follows the collection process"),
  amount: readOnly("record a credit note to reduce a debt"),
  currency: readOnly("fixed at creation"),
  credited_invoice_reference: readOnly("fixed at creation"),
}).annotations({
  identifier: "UpdateDebtBody",
  description:
    "Any subset of the debt's writable fields; absent fields are unchanged and `null` clears a field. `status`, " +
    "`amount`, `currency` and `credited_invoice_reference` are read-only.",
});
export type UpdateDebtBody = typeof UpdateDebtBody.Type;

const nullableString = (description?: string) =>
  description === undefined ? Schema.NullOr(Schema.String) : Schema.NullOr(Schema.String).annotations({ description });

export const Debt = Schema.Struct({
  id: EncryptedId("debt"),
  creditor_id: EncryptedId("creditor"),
  debtor_id: Schema.NullOr(EncryptedId("debtor")),
  civility: nullableString("Title"),
  firstname: nullableString(),
  lastname: nullableString(),
  phone: nullableString("E.164"),
  email: nullableString(),
  birthdate: Schema.NullOr(PlainDate),
  amount: Schema.Number.annotations({ description: "The debt amount at creation, major units" }),
  amount_text: Schema.String.annotations({
    description: "`amount` as text with the currency's decimals, e.g. `1234.50`",
  }),
  remaining_amount: Schema.Number.annotations({ description: "What is still owed, major units" }),
  currency: Schema.String,
  object: nullableString("Description or reason"),
  internal_id: nullableString("The client's own reference"),
  invoice_reference: nullableString(),
  credited_invoice_reference: nullableString("Set on credit notes: the credited invoice_reference"),
  is_credit_note: Schema.Boolean,
  debtor_reference: nullableString(),
  invoice_date: Schema.NullOr(PlainDate),
  due_date: Schema.NullOr(PlainDate),
  address: nullableString("Full address, legacy"),
  street_address: nullableString(),
  street_number: nullableString(),
  postal_code: nullableString(),
  city: nullableString(),
  country: nullableString(),
  status: Schema.String.annotations({
    description:
      "Read-only: status.default.pending (on creation), status.default.in_progress, status.default.payment_plan, " +
      "status.default.disputed, status.default.paid, status.default.cancelled",
  }),
  timeline_id: Schema.NullOr(EncryptedId("timeline")),
  nb_reminders: Schema.Int,
  nb_answered: Schema.Int,
  summary: nullableString(),
  iban: nullableString(),
  followups_count: Schema.Int,
  company: Schema.optional(
    Schema.String.annotations({
      description: "Creditor company name; present only when the company is a collection agency",
    }),
  ),
  debtor_company: nullableString("For B2B debts"),
  payment_link: nullableString("Custom payment URL"),
  metadata: Schema.Record({ key: Schema.String, value: AnyJson }).annotations({ description: "Free key/value object" }),
  import_date: IsoOffsetDateTime,
  last_timeline_restart: Schema.NullOr(IsoOffsetDateTime),
  payment_plan_active: Schema.Boolean,
  plan_start_date: Schema.NullOr(PlainDate),
  is_grouped: Schema.Boolean.annotations({
    description: "True when the debt belongs to a group with several non-archived debts",
  }),
  group_debt_ids: Schema.Array(EncryptedId("debt")).annotations({
    description:
      "Encrypted ids of the group's non-archived debts, this debt always included; only its own id when ungrouped",
  }),
  created_at: IsoOffsetDateTime,
  updated_at: IsoOffsetDateTime,
}).annotations({ identifier: "Debt", description: "A debt or credit note" });
export type Debt = typeof Debt.Type;

export const emailValidationStatuses = ["valid", "invalid", "unverifiable"] as const;

export const EmailValidation = Schema.Struct({
  status: Schema.Literal(...emailValidationStatuses),
  reason: Schema.String.annotations({
    description:
      "valid_syntax_and_domain, reserved_domain, disposable_domain, invalid_domain, no_email or not_requested",
  }),
  charged: Schema.Boolean.annotations({
    description: "Always false: the check makes no network call and costs nothing",
  }),
  email: Schema.NullOr(Schema.String),
}).annotations({ identifier: "EmailValidation" });
export type EmailValidation = typeof EmailValidation.Type;

export const CreatedDebt = Schema.Struct({ ...Debt.fields, email_validation: EmailValidation }).annotations({
  identifier: "CreatedDebt",
});
export type CreatedDebt = typeof CreatedDebt.Type;
