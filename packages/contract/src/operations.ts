/**
 * Every operation of the contract keyed by its operationId, and the
 * browser-facing pages documented beside them.
 */
import * as company from "./endpoints/company.ts";
import * as creditors from "./endpoints/creditors.ts";
import * as debtTimeline from "./endpoints/debt-timeline.ts";
import * as debts from "./endpoints/debts.ts";
import * as debtors from "./endpoints/debtors.ts";
import * as emailTracking from "./endpoints/email-tracking.ts";
import * as followups from "./endpoints/followups.ts";
import * as media from "./endpoints/media.ts";
import * as oauth from "./endpoints/oauth.ts";
import * as debtorPage from "./endpoints/debtor-page.ts";
import * as payments from "./endpoints/payments.ts";
import * as sandbox from "./endpoints/sandbox.ts";
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
  validateTodo: todos.validateTodo,
  rejectTodo: todos.rejectTodo,
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
  getDebtTimeline: debtTimeline.getDebtTimeline,
  pauseDebtTimeline: debtTimeline.pauseDebtTimeline,
  resumeDebtTimeline: debtTimeline.resumeDebtTimeline,
  restartDebtTimeline: debtTimeline.restartDebtTimeline,
  getSandboxClock: sandbox.getSandboxClock,
  advanceSandboxClock: sandbox.advanceSandboxClock,
  listSandboxMessages: sandbox.listSandboxMessages,
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
  openEmailPixel: emailTracking.openEmailPixel,
  followEmailLink: emailTracking.followEmailLink,
  showEmailUnsubscribe: emailTracking.showEmailUnsubscribe,
  unsubscribeFromEmail: emailTracking.unsubscribeFromEmail,
  receivePostmarkWebhook: emailTracking.receivePostmarkWebhook,
  showDebtorPage: debtorPage.showDebtorPage,
  submitDebtorPage: debtorPage.submitDebtorPage,
  receiveStripeWebhook: debtorPage.receiveStripeWebhook,
} as const;
export type OperationId = keyof Endpoints;
