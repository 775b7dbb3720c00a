/**
 * One realistic instance of each resource the API answers with, shared by
 * the operation examples (operations.ts): the debt that `createDebt` makes is
 * the one `getDebt` reads and `listDebts` lists. Ids have the shape of the
 * API's encrypted ids; every value passes the resource's schema
 * (test/examples.test.ts decodes each example).
 */

export const ids = {
  debt: "ZnUv5gi_YOuQ0N8szl72bWEu9wkbI-zB824",
  secondDebt: "zv0drndX6VFC5C4fWz1UJIkxCIy6D4Hd01k",
  creditor: "VKSSBfSJy2tvdFrz8QA778VBmwGwD4oKH4I",
  debtor: "5jwqJniMzT2qIIswDsaVpVXCW2TfPZhF_R8",
  followup: "VRI__6oWeEx-LZBAGOPDjOJLmLMjJPZWimA",
  timeline: "KMLtx8yOA6xhUXihWcHHVNOBsQDDOEGwAiQ",
  user: "GTUZ6vKf4uWEMnAu0gHR4YPeAbWGU3ACvU0",
  secondUser: "BwaLr031M72ZZkOwA5CilSmXy8cu78jx3zA",
  webhookEndpoint: "NNlOBJajMWLM4Grr6cJN0i0TLkLroIvbCFE",
  todo: "jGFhwNatvoZPwk_njfpzH0u1hcWvTYZDuCM",
  company: "EKCh45TT-SdfpsDoCup23UEWEtoaj8WPTjU",
  event: "evt_gHVjtCSaNbMDyh9vomQtrYN9fJ8-BroPDUg",
  payment: "3b5e203e-5426-40e6-83ab-54cae7375154",
  import: "8bb470a7-3f21-4944-aad2-748b012e5733",
} as const;

export const campaign = "acme-collections-1a93c1";
export const snapshotReference = "ledger-export-2026-11-21-0001";

/** The debt created by the `createDebt` example, as every debt operation answers it. */
export const debt = {
  id: ids.debt,
  creditor_id: ids.creditor,
  debtor_id: ids.debtor,
  civility: "Mrs",
  firstname: "Jane",
  lastname: "Doe",
  phone: "+33612345678",
  email: "jane.doe@example.com",
  birthdate: "1984-03-12",
  amount: 120.5,
  amount_text: "120.50",
  remaining_amount: 120.5,
  currency: "EUR",
  object: "Invoice INV-2026-1001: annual maintenance contract",
  internal_id: "INV-2026-1001",
  invoice_reference: "INV-2026-1001",
  credited_invoice_reference: null,
  is_credit_note: false,
  debtor_reference: "CUST-4711",
  invoice_date: "2026-10-01",
  due_date: "2026-10-31",
  address: "12 rue de la Paix, 75002 Paris",
  street_address: "rue de la Paix",
  street_number: "12",
  postal_code: "75002",
  city: "Paris",
  country: "FR",
  status: "status.default.pending",
  timeline_id: ids.timeline,
  nb_reminders: 0,
  nb_answered: 0,
  summary: null,
  iban: null,
  followups_count: 0,
  company: "Acme Collections",
  debtor_company: null,
  payment_link: "https://pay.example.com/i/INV-2026-1001",
  metadata: { erp_account: "411-4711" },
  import_date: "2026-11-21T09:30:00+00:00",
  last_timeline_restart: null,
  payment_plan_active: false,
  plan_start_date: null,
  is_grouped: false,
  group_debt_ids: [],
  created_at: "2026-11-21T09:30:00+00:00",
  updated_at: "2026-11-21T09:30:00+00:00",
} as const;

export const emailValidation = {
  status: "valid",
  reason: "mailbox_exists",
  charged: true,
  email: "jane.doe@example.com",
} as const;

export const creditor = {
  id: ids.creditor,
  name: "Acme Supplies SAS",
  email: "billing@acme-supplies.example",
  phone: "+33140000000",
  address: "8 avenue de l'Opéra",
  city: "Paris",
  postalCode: "75001",
  country: "FR",
  registrationNumber: "RCS Paris 812 345 678",
  taxNumber: "FR40812345678",
  contactPerson: "Marc Lefèvre",
  createdAt: "2026-09-02 14:05:11",
  updatedAt: "2026-11-20 08:12:45",
} as const;

export const debtor = {
  id: ids.debtor,
  debtor_reference: "CUST-4711",
  civility: "Mrs",
  firstname: "Jane",
  lastname: "Doe",
  email: "jane.doe@example.com",
  phone: "+33612345678",
  birthdate: "1984-03-12",
  debtor_company: null,
  address: "12 rue de la Paix, 75002 Paris",
  street_address: "rue de la Paix",
  street_number: "12",
  postal_code: "75002",
  city: "Paris",
  country: "FR",
  debt_ids: [ids.debt, ids.secondDebt],
  debts_count: 2,
  created_at: "2026-10-02T08:00:00+00:00",
  updated_at: "2026-11-21T09:30:00+00:00",
} as const;

export const followup = {
  id: ids.followup,
  debt_id: ids.debt,
  status: "deal_found",
  type: "call",
  call_date: "2026-11-22T10:15:00+00:00",
  scheduled_at: "2026-11-22T10:00:00+00:00",
  summary: "The debtor agreed to pay the full balance by card before 30 November.",
  notes: "Prefers calls after 10:00.",
  call_id: "call_7f3a9c21",
  audio_url: null,
  pdf_url: null,
  duration_ms: 184000,
  disconnection_reason: "user_hangup",
  direction: "outbound",
  phone_number_used: "+33612345678",
  is_retry: false,
  processed_at: "2026-11-22T10:19:02+00:00",
  credits_charged: 3,
  triggered_payment: true,
  email_opened: false,
  email_open_count: 0,
  email_first_opened_at: null,
  email_clicked: false,
  email_click_count: 0,
  created_at: "2026-11-22T10:19:02+00:00",
  updated_at: "2026-11-22T10:19:02+00:00",
} as const;

export const payment = {
  id: ids.payment,
  debt_id: ids.debt,
  installment_id: null,
  external_payment_id: "PAY-88213",
  provider: "snapshot",
  amount: 25,
  currency: "EUR",
  status: "succeeded",
  paid_at: "2026-11-23T06:00:12+00:00",
} as const;

export const pagination = (total: number) => ({ total, page: 1, limit: 20, pages: Math.max(1, Math.ceil(total / 20)) });

/** A snapshot's status resource in `state`. */
export const snapshotAcknowledgement = (
  state: "pending" | "uploading" | "completed",
  mode: "one_request" | "staged" = "one_request",
) => ({
  api_reference: campaign,
  snapshot_reference: snapshotReference,
  delivery_mode: mode,
  status: state,
  core_applied: state === "completed",
  expected_row_count: 2,
  received_row_count: state === "uploading" ? 0 : 2,
  received_chunk_count: mode === "one_request" || state !== "uploading" ? 1 : 0,
  next_chunk_index: mode === "one_request" || state !== "uploading" ? 1 : 0,
  counts:
    state === "completed"
      ? {
          rows: 2,
          created: 1,
          updated: 1,
          unchanged: 0,
          settled: 0,
          plans_replaced: 0,
          plans_kept: 0,
          payments: 1,
          skipped_zero_balance: 0,
          warnings: 0,
        }
      : null,
  failure: null,
  created_at: "2026-11-21T06:00:03.412Z",
  updated_at: state === "completed" ? "2026-11-21T06:00:05.118Z" : "2026-11-21T06:00:03.412Z",
  status_url: `/external-api/v1/campaigns/${campaign}/snapshots/${snapshotReference}`,
  ...(state === "completed" ? { warnings: [], warning_count: 0, warnings_omitted: 0 } : {}),
});

/** Two rows of a ledger export: an account with a payment plan, and one without. */
export const snapshotRows = [
  {
    internal_id: "ACC-10042",
    remaining_amount: 95.5,
    currency: "EUR",
    firstname: "Jane",
    lastname: "Doe",
    email: "jane.doe@example.com",
    phone: "+33612345678",
    payment_plan: {
      external_reference: "PLAN-10042",
      status: "active",
      installments: [
        {
          external_reference: "PLAN-10042-1",
          amount: 25,
          payment_date: "2026-11-15",
          status: "paid",
          paid_at: "2026-11-15T08:02:00Z",
          external_payment_id: "PAY-88213",
        },
        { external_reference: "PLAN-10042-2", amount: 47.75, payment_date: "2026-12-15", status: "pending" },
        { external_reference: "PLAN-10042-3", amount: 47.75, payment_date: "2027-01-15", status: "pending" },
      ],
    },
  },
  {
    internal_id: "ACC-10043",
    remaining_amount: 310,
    currency: "EUR",
    firstname: "Omar",
    lastname: "Benali",
    email: "omar.benali@example.com",
  },
];

export const webhookEndpoint = {
  id: ids.webhookEndpoint,
  url: "https://hooks.acme-supplies.example/debt-collection",
  description: "ERP sync: payments and settled debts",
  event_types: ["payment.recorded", "debt.settled", "snapshot.completed", "snapshot.failed"],
  enabled: true,
  ordered: false,
  disabled_reason: null,
  disabled_at: null,
  previous_secret_expires_at: null,
  created_at: "2026-11-01T09:00:00+00:00",
  updated_at: "2026-11-01T09:00:00+00:00",
} as const;

export const webhookSecret = "whsec_MfKQ9r8GKYqXkQYJkfWQHnZrQ6bL1mYbS0x5eW3tV7c=";

/** The envelope of a single resource or a mutation's answer. */
/** A debtor's payment plan proposal awaiting review, as GET /todos lists it. */
export const todo = {
  id: ids.todo,
  source: "debtor_request",
  type: "payment_plan",
  review_status: "suggested",
  blocking: true,
  debt_id: ids.secondDebt,
  followup_id: null,
  message: "Could I pay in three monthly instalments?",
  content: {
    currency: "EUR",
    installments: [
      { amount: 40, payment_date: "2026-12-05" },
      { amount: 40, payment_date: "2027-01-05" },
      { amount: 40.5, payment_date: "2027-02-05" },
    ],
  },
  attachment: null,
  note: null,
  created_at: "2026-11-20T17:42:00+00:00",
  reviewed_at: null,
} as const;

/** The same todo once the company validated it. */
export const validatedTodo = {
  ...todo,
  review_status: "validated",
  note: "Agreed on the phone",
  reviewed_at: "2026-11-21T09:15:00+00:00",
} as const;

export const ok = (message: string, data: unknown) => ({ error: false, message, data });
/** The envelope of a list's first page holding `data`. */
export const list = (data: ReadonlyArray<unknown>) => ({ error: false, data, pagination: pagination(data.length) });
/** The query of a list's first page. */
export const page = { page: 1, limit: 20 };
