/** Every operation's handler, keyed by the contract's operationId. */
import type { Handlers } from "../http/handler.ts";
import { getCompanyProfile } from "./company/get-profile.ts";
import { getCompanyCredits } from "./company/get-credits.ts";
import { getCompanyStatistics } from "./company/get-statistics.ts";
import { listCompanyUsers } from "./company/list-users.ts";
import { createCreditor } from "./creditors/create-creditor.ts";
import { getCreditor } from "./creditors/get-creditor.ts";
import { listCreditors } from "./creditors/list-creditors.ts";
import { updateCreditor } from "./creditors/update-creditor.ts";
import { createDebt } from "./debts/create-debt.ts";
import { createDebtsBatch } from "./debts/create-debts-batch.ts";
import { deleteDebt } from "./debts/delete-debt.ts";
import { getDebt } from "./debts/get-debt.ts";
import { listDebtPayments } from "./debts/list-debt-payments.ts";
import { listDebtsByCreditor } from "./debts/list-debts-by-creditor.ts";
import { listDebtsByDebtor } from "./debts/list-debts-by-debtor.ts";
import { listDebts } from "./debts/list-debts.ts";
import { updateDebt } from "./debts/update-debt.ts";
import { getDebtTimeline } from "./debt-timeline/get-debt-timeline.ts";
import { pauseDebtTimeline } from "./debt-timeline/pause-debt-timeline.ts";
import { restartDebtTimeline } from "./debt-timeline/restart-debt-timeline.ts";
import { resumeDebtTimeline } from "./debt-timeline/resume-debt-timeline.ts";
import { getDebtor } from "./debtors/get-debtor.ts";
import { listDebtors } from "./debtors/list-debtors.ts";
import { createFollowup } from "./followups/create-followup.ts";
import { getFollowup } from "./followups/get-followup.ts";
import { listFollowupsByDebt } from "./followups/list-followups-by-debt.ts";
import { listFollowups } from "./followups/list-followups.ts";
import { updateFollowup } from "./followups/update-followup.ts";
import { getMedia } from "./media/get-media.ts";
import { getAuthorizationServerMetadata } from "./oauth/get-metadata.ts";
import { issueToken } from "./oauth/issue-token.ts";
import { revokeToken } from "./oauth/revoke-token.ts";
import { advanceSandboxClock } from "./sandbox/advance-sandbox-clock.ts";
import { getSandboxClock } from "./sandbox/get-sandbox-clock.ts";
import { listSandboxMessages } from "./sandbox/list-sandbox-messages.ts";
import { finalizeSnapshot } from "./snapshots/finalize-snapshot.ts";
import { getSnapshot } from "./snapshots/get-snapshot.ts";
import { startStagedSnapshot } from "./snapshots/start-staged-snapshot.ts";
import { submitSnapshot } from "./snapshots/submit-snapshot.ts";
import { uploadSnapshotChunk } from "./snapshots/upload-snapshot-chunk.ts";
import { listTimelines } from "./timelines/list-timelines.ts";
import { getTodoStats } from "./todos/get-todo-stats.ts";
import { listTodos } from "./todos/list-todos.ts";
import { rejectTodo, validateTodo } from "./todos/review-todo.ts";
import { createWebhookEndpoint } from "./webhooks/create-webhook-endpoint.ts";
import { deleteWebhookEndpoint } from "./webhooks/delete-webhook-endpoint.ts";
import { getWebhookEndpoint } from "./webhooks/get-webhook-endpoint.ts";
import { listWebhookDeliveries } from "./webhooks/list-webhook-deliveries.ts";
import { listWebhookEndpoints } from "./webhooks/list-webhook-endpoints.ts";
import { replayFailedWebhookDeliveries } from "./webhooks/replay-failed-webhook-deliveries.ts";
import { replayWebhookEvent } from "./webhooks/replay-webhook-event.ts";
import { rotateWebhookSecret } from "./webhooks/rotate-webhook-secret.ts";
import { updateWebhookEndpoint } from "./webhooks/update-webhook-endpoint.ts";

export const handlers: Handlers = {
  issueToken,
  issueTokenAlias: issueToken,
  revokeToken,
  getAuthorizationServerMetadata,
  getCompanyProfile,
  getCompanyStatistics,
  getCompanyCredits,
  listCompanyUsers,
  createFollowup,
  listFollowups,
  listFollowupsByDebt,
  getFollowup,
  updateFollowup,
  patchFollowup: updateFollowup,
  getMedia,
  getTodoStats,
  listTodos,
  validateTodo,
  rejectTodo,
  listTimelines,
  listDebtors,
  getDebtor,
  listCreditors,
  createCreditor,
  getCreditor,
  updateCreditor,
  patchCreditor: updateCreditor,
  listDebts,
  createDebt,
  createDebtsBatch,
  listDebtsByCreditor,
  listDebtsByCreditorAlias: listDebtsByCreditor,
  listDebtsByDebtor,
  getDebt,
  updateDebt,
  patchDebt: updateDebt,
  deleteDebt,
  listDebtPayments,
  getDebtTimeline,
  pauseDebtTimeline,
  resumeDebtTimeline,
  restartDebtTimeline,
  getSandboxClock,
  advanceSandboxClock,
  listSandboxMessages,
  submitSnapshot,
  startStagedSnapshot,
  uploadSnapshotChunk,
  finalizeSnapshot,
  getSnapshot,
  listWebhookEndpoints,
  createWebhookEndpoint,
  getWebhookEndpoint,
  updateWebhookEndpoint,
  deleteWebhookEndpoint,
  rotateWebhookSecret,
  listWebhookDeliveries,
  replayFailedWebhookDeliveries,
  replayWebhookEvent,
};
