/** Examples of the debt, debtor, creditor and payment operations (operations.ts gathers them). */
import { creditor, debt, debtor, emailValidation, ids, list, ok, page, payment } from "./resources.ts";

/** A creditor's writable fields: what creates the creditor the examples read. */
const { id: _id, createdAt: _createdAt, updatedAt: _updatedAt, ...creditorFields } = creditor;

const secondDebt = {
  ...debt,
  id: ids.secondDebt,
  amount: 310,
  amount_text: "310.00",
  remaining_amount: 310,
  internal_id: "INV-2026-1002",
  invoice_reference: "INV-2026-1002",
  object: "Invoice INV-2026-1002: spare parts",
  invoice_date: "2026-10-15",
  due_date: "2026-11-14",
  status: "status.default.in_progress",
  nb_reminders: 2,
  followups_count: 2,
  last_timeline_restart: "2026-11-15T07:00:00+00:00",
  metadata: {},
};
const createDebtBody = {
  creditor_id: ids.creditor,
  amount: 120.5,
  currency: "EUR",
  civility: "Mrs",
  firstname: "Jane",
  lastname: "Doe",
  phone: "+33612345678",
  email: "jane.doe@example.com",
  birthdate: "1984-03-12",
  object: "Invoice INV-2026-1001: annual maintenance contract",
  internal_id: "INV-2026-1001",
  invoice_reference: "INV-2026-1001",
  debtor_reference: "CUST-4711",
  invoice_date: "2026-10-01",
  due_date: "2026-10-31",
  street_number: "12",
  street_address: "rue de la Paix",
  postal_code: "75002",
  city: "Paris",
  country: "FR",
  payment_link: "https://pay.example.com/i/INV-2026-1001",
  timeline_id: ids.timeline,
  timeline_start_mode: "due_date",
  metadata: { erp_account: "411-4711" },
  validate_emails: true,
};
const debtUpdate = {
  email: "jane.doe@example.org",
  phone: "+33698765432",
  due_date: "2026-12-15",
  metadata: { erp_account: "411-4711", dunning_level: 2 },
};
const updatedDebt = { ...debt, ...debtUpdate, updated_at: "2026-11-24T15:02:10+00:00" };
const creditorUpdate = { email: "accounts@acme-supplies.example", contactPerson: "Claire Martin" };

export const debtsExamples = {
  listDebtors: { query: page, response: list([debtor]) },
  getDebtor: { path: { id: ids.debtor }, response: ok("Debtor retrieved successfully", debtor) },
  listCreditors: { query: page, response: list([creditor]) },
  createCreditor: {
    request: creditorFields,
    response: ok("Creditor created successfully", creditor),
  },
  getCreditor: {
    path: { id: ids.creditor },
    response: ok("Creditor retrieved successfully", {
      data: { ...creditor, totalDebts: 2, totalAmount: 430.5, totalAmountByCurrency: { EUR: 430.5 } },
    }),
  },
  updateCreditor: {
    path: { id: ids.creditor },
    request: creditorUpdate,
    response: ok("Creditor updated successfully", { ...creditor, ...creditorUpdate, updatedAt: "2026-11-24 15:02:10" }),
  },
  patchCreditor: {
    path: { id: ids.creditor },
    request: creditorUpdate,
    response: ok("Creditor updated successfully", { ...creditor, ...creditorUpdate, updatedAt: "2026-11-24 15:02:10" }),
  },
  listDebts: { query: { ...page, status: "active", currency: "EUR" }, response: list([secondDebt, debt]) },
  createDebt: {
    request: createDebtBody,
    response: ok("Debt created successfully", { ...debt, email_validation: emailValidation }),
  },
  createDebtsBatch: {
    request: {
      batch_name: "November invoices",
      creditor_id: ids.creditor,
      validate_emails: true,
      debts: [
        {
          temp_id: "row-1",
          amount: 120.5,
          currency: "EUR",
          firstname: "Jane",
          lastname: "Doe",
          email: "jane.doe@example.com",
          internal_id: "INV-2026-1001",
          due_date: "2026-10-31",
        },
        {
          temp_id: "row-2",
          amount: 310.125,
          currency: "EUR",
          firstname: "Omar",
          lastname: "Benali",
          email: "omar.benali@example.com",
          internal_id: "INV-2026-1002",
        },
        {
          temp_id: "row-3",
          amount: 64.2,
          currency: "EUR",
          firstname: "Lena",
          lastname: "Schulz",
          internal_id: "INV-2026-0998",
        },
      ],
    },
    response: ok("Batch processed successfully", {
      import_id: ids.import,
      batch_name: "November invoices",
      created: [
        {
          index: 0,
          temp_id: "row-1",
          debt_id: ids.debt,
          status: "valid",
          data: {
            firstname: "Jane",
            lastname: "Doe",
            phone: null,
            email: "jane.doe@example.com",
            amount: 120.5,
            currency: "EUR",
          },
        },
      ],
      failed: [
        {
          index: 1,
          temp_id: "row-2",
          status: "error",
          errors: [{ property: "amount", message: "has more than 2 decimal(s) for EUR" }],
        },
      ],
      skipped: [
        {
          index: 2,
          temp_id: "row-3",
          status: "skipped",
          reason: "duplicate_internal_id",
          internal_id: "INV-2026-0998",
          existing_debt_id: ids.secondDebt,
          duplicate_of_index: null,
        },
      ],
      summary: {
        total: 3,
        created: 1,
        failed: 1,
        skipped: 1,
        valid: 1,
        error: 1,
        email_validation: { valid: 1, invalid: 0, unverifiable: 0, charged: 1 },
      },
    }),
  },
  listDebtsByCreditor: { path: { creditorId: ids.creditor }, query: page, response: list([secondDebt, debt]) },
  listDebtsByCreditorAlias: { path: { creditorId: ids.creditor }, query: page, response: list([secondDebt, debt]) },
  listDebtsByDebtor: { path: { debtorId: ids.debtor }, query: page, response: list([secondDebt, debt]) },
  getDebt: { path: { id: ids.debt }, response: ok("Debt retrieved successfully", debt) },
  updateDebt: { path: { id: ids.debt }, request: debtUpdate, response: ok("Debt updated successfully", updatedDebt) },
  patchDebt: { path: { id: ids.debt }, request: debtUpdate, response: ok("Debt updated successfully", updatedDebt) },
  deleteDebt: { path: { id: ids.debt }, response: { error: false, message: "Debt deleted successfully" } },
  listDebtPayments: { path: { id: ids.debt }, query: page, response: list([payment]) },
} as const;
