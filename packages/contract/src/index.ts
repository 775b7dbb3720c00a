/**
 * The HTTP contract: every operation's declaration, keyed by operationId.
 * Depends on effect and the domain only (never on Koa or the database).
 */
export { endpoints, type Endpoints, type OperationId, pages } from "./operations.ts";

export * from "./endpoint.ts";
export * from "./envelopes.ts";
export * from "./errors.ts";
export * from "./formats.ts";
export * from "./pagination.ts";
export * from "./rate-limits.ts";
export * from "./scopes.ts";
export * from "./tags.ts";
export { CompanyProfile } from "./endpoints/company.ts";
export { Creditor, CreditorWithTotals, creditorMessages } from "./endpoints/creditors.ts";
export { civilities, CreatedDebt, type CreateDebtBody, Debt, EmailValidation, timelineStartModes } from "./endpoints/debt-fields.ts";
export { BatchDebtEntry, type BatchResult, MAX_BATCH_SIZE } from "./endpoints/debt-batch.ts";
export { type DebtListQuery, debtMessages } from "./endpoints/debts.ts";
export {
  DEBTOR_PAGE_FORM_BYTES,
  DEBTOR_PAGE_MULTIPART_BYTES,
  DEBTOR_PAGE_MULTIPART_PARTS,
  PAYMENT_WEBHOOK_BYTES,
  StripeEvent,
  stripeWebhookMessages,
} from "./endpoints/debtor-page.ts";
export { Payment } from "./endpoints/payments.ts";
export {
  DebtTimeline,
  debtTimelineErrorCodes,
  debtTimelineMessages,
  enrollmentStates,
  MAX_PAUSE_REASON_LENGTH,
} from "./endpoints/debt-timeline.ts";
export {
  SANDBOX_ADVANCE_MAX_WAIT_SECONDS,
  SANDBOX_MAX_ADVANCE_DAYS,
  sandboxErrorCodes,
  sandboxMessages,
  type SandboxMessagesQuery,
} from "./endpoints/sandbox.ts";
export * from "./endpoints/snapshot-fields.ts";
export { snapshotErrorCodes, snapshotMessages } from "./endpoints/snapshot-errors.ts";
export { SNAPSHOT_STATUS_MAX_WAIT_SECONDS } from "./endpoints/snapshots.ts";
export { companyMessages } from "./endpoints/company.ts";
export { debtorMessages } from "./endpoints/debtors.ts";
export { followupMessages } from "./endpoints/followups.ts";
export { MEDIA_URL_TTL_SECONDS, mediaMessages } from "./endpoints/media.ts";
export {
  EMAIL_FORM_BODY_BYTES,
  EMAIL_WEBHOOK_BODY_BYTES,
  emailTrackingPaths,
  postmarkWebhookMessages,
} from "./endpoints/email-tracking.ts";
export { type ListTodosQuery, todoErrorCodes, todoMessages, todoPeriods, type TodoPeriod } from "./endpoints/todos.ts";
export {
  AuthorizationForm,
  AuthorizationRequest,
  AuthorizationServerMetadata,
  METADATA_MAX_AGE_SECONDS,
  OAUTH_FORM_BODY_BYTES,
  RevocationRequest,
  RevocationResponse,
  TokenRequest,
  TokenResponse,
} from "./endpoints/oauth.ts";
export { buildOpenApiDocument } from "./openapi.ts";
export {
  DEFAULT_SECRET_OVERLAP_SECONDS,
  MAX_LISTED_ATTEMPTS,
  MAX_WEBHOOK_ENDPOINTS,
  WebhookEndpoint,
  webhookErrorCodes,
  webhookMessages,
} from "./endpoints/webhooks.ts";
export * from "./webhooks.ts";
export * from "./callbacks.ts";
