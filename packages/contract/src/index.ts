/**
 * The HTTP contract: every operation's declaration, keyed by operationId.
 * Depends on effect and the domain only (never on Koa or the database).
 */
import * as company from "./endpoints/company.ts";
import * as creditors from "./endpoints/creditors.ts";
import * as debts from "./endpoints/debts.ts";
import * as debtors from "./endpoints/debtors.ts";
import * as followups from "./endpoints/followups.ts";
import * as media from "./endpoints/media.ts";
import * as oauth from "./endpoints/oauth.ts";
import * as payments from "./endpoints/payments.ts";
import * as snapshots from "./endpoints/snapshots.ts";
import * as timelines from "./endpoints/timelines.ts";
import * as todos from "./endpoints/todos.ts";
import * as users from "./endpoints/users.ts";
import * as webhooks from "./endpoints/webhooks.ts";

export const endpoints = {
  issueToken: oauth.issueToken,
  issueTokenAlias: oauth.issueTokenAlias,
  revokeToken: oauth.revokeToken,
  getAuthorizationServerMetadata: oauth.getAuthorizationServerMetadata,
  getCompanyProfile: company.getCompanyProfile,
  getCompanyStatistics: company.getCompanyStatistics,
  getCompanyCredits: company.getCompanyCredits,
  listCompanyUsers: users.listCompanyUsers,
  createFollowup: followups.createFollowup,
  listFollowups: followups.listFollowups,
  listFollowupsByDebt: followups.listFollowupsByDebt,
  getFollowup: followups.getFollowup,
  updateFollowup: followups.updateFollowup,
  patchFollowup: followups.patchFollowup,
  getMedia: media.getMedia,
  getTodoStats: todos.getTodoStats,
  listTodos: todos.listTodos,
  listTimelines: timelines.listTimelines,
  listDebtors: debtors.listDebtors,
  getDebtor: debtors.getDebtor,
  listCreditors: creditors.listCreditors,
  createCreditor: creditors.createCreditor,
  getCreditor: creditors.getCreditor,
  updateCreditor: creditors.updateCreditor,
  patchCreditor: creditors.patchCreditor,
  listDebts: debts.listDebts,
  createDebt: debts.createDebt,
  createDebtsBatch: debts.createDebtsBatch,
  listDebtsByCreditor: debts.listDebtsByCreditor,
  listDebtsByCreditorAlias: debts.listDebtsByCreditorAlias,
  listDebtsByDebtor: debts.listDebtsByDebtor,
  getDebt: debts.getDebt,
  updateDebt: debts.updateDebt,
  patchDebt: debts.patchDebt,
  deleteDebt: debts.deleteDebt,
  listDebtPayments: payments.listDebtPayments,
  submitSnapshot: snapshots.submitSnapshot,
  startStagedSnapshot: snapshots.startStagedSnapshot,
  uploadSnapshotChunk: snapshots.uploadSnapshotChunk,
  finalizeSnapshot: snapshots.finalizeSnapshot,
  getSnapshot: snapshots.getSnapshot,
  listWebhookEndpoints: webhooks.listWebhookEndpoints,
  createWebhookEndpoint: webhooks.createWebhookEndpoint,
  getWebhookEndpoint: webhooks.getWebhookEndpoint,
  updateWebhookEndpoint: webhooks.updateWebhookEndpoint,
  deleteWebhookEndpoint: webhooks.deleteWebhookEndpoint,
  rotateWebhookSecret: webhooks.rotateWebhookSecret,
  listWebhookDeliveries: webhooks.listWebhookDeliveries,
  replayFailedWebhookDeliveries: webhooks.replayFailedWebhookDeliveries,
  replayWebhookEvent: webhooks.replayWebhookEvent,
} as const;

export type Endpoints = typeof endpoints;

/** Browser-facing operations (HTML and redirects): documented here, served outside the JSON router. */
export const pages = {
  authorize: oauth.authorize,
  submitAuthorization: oauth.submitAuthorization,
} as const;
export type OperationId = keyof Endpoints;

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
export { Payment } from "./endpoints/payments.ts";
export * from "./endpoints/snapshot-fields.ts";
export { snapshotErrorCodes, snapshotMessages } from "./endpoints/snapshot-errors.ts";
export { SNAPSHOT_STATUS_MAX_WAIT_SECONDS } from "./endpoints/snapshots.ts";
export { companyMessages } from "./endpoints/company.ts";
export { debtorMessages } from "./endpoints/debtors.ts";
export { followupMessages } from "./endpoints/followups.ts";
export { MEDIA_URL_TTL_SECONDS, mediaMessages } from "./endpoints/media.ts";
export { todoMessages, todoPeriods, type TodoPeriod } from "./endpoints/todos.ts";
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
