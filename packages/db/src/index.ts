/** Persistence shared by the api, the worker and the CLI. */
export * from "./connection.ts";
export * from "./embedded-postgres.ts";
export * from "./migrate.ts";
export * from "./migration-failures.ts";
export * from "./migration-locks.ts";
export * from "./migration-settings.ts";
export * from "./queries/admin/find-row-company.ts";
export * from "./queries/admin/find-row-id.ts";
export * from "./queries/ai-detections/index.ts";
export * from "./queries/campaigns/insert-campaign.ts";
export * from "./queries/companies/index.ts";
export * from "./queries/credit-transactions/insert-followup-charge.ts";
export * from "./queries/creditors/index.ts";
export * from "./queries/debtors/index.ts";
export * from "./queries/debts/index.ts";
export * from "./queries/debtor-page/index.ts";
export * from "./queries/enrollments/index.ts";
export * from "./queries/engine/index.ts";
export * from "./queries/executor.ts";
export * from "./queries/followups/index.ts";
export * from "./queries/health/ping-database.ts";
export * from "./queries/idempotency-keys/index.ts";
export * from "./queries/import-batches/index.ts";
export * from "./queries/jobs/index.ts";
export * from "./queries/login-sessions/index.ts";
export * from "./queries/oauth/index.ts";
export * from "./queries/page-of-rows.ts";
export {
  instantOfMicros,
  isKeyOf,
  isKeysetRequest,
  type KeyColumn,
  type KeyKind,
  type Keyset,
  type KeyValues,
} from "./queries/keyset.ts";
export * from "./queries/email-outcomes/index.ts";
export * from "./queries/payment-plans/index.ts";
export * from "./queries/payments/list-debt-payments.ts";
export * from "./queries/payments/mark-triggering-followups.ts";
export * from "./queries/provider-acknowledgements/index.ts";
export * from "./queries/provider-events/index.ts";
export * from "./queries/stored-objects/index.ts";
export * from "./queries/rate-limits/delete-expired-counters.ts";
export * from "./queries/rate-limits/find-counter.ts";
export * from "./queries/rate-limits/increment-counter.ts";
export * from "./queries/rate-limits/refund-rate-limit.ts";
export * from "./queries/retention/purge-snapshot-bodies.ts";
export * from "./queries/retention/purge-webhook-events.ts";
export * from "./queries/sandbox-messages/index.ts";
export * from "./queries/sandbox/index.ts";
export * from "./queries/settings/allow-bulk-statements.ts";
export * from "./queries/snapshots/count-snapshots-by-status.ts";
export * from "./queries/timelines/index.ts";
export * from "./queries/todos/index.ts";
export * from "./queries/users/find-active-user-id.ts";
export * from "./queries/users/find-user-by-email.ts";
export * from "./queries/users/insert-user.ts";
export * from "./queries/users/list-users.ts";
export * from "./queries/webhooks/deliveries/index.ts";
export * from "./queries/webhooks/endpoints/index.ts";
export * from "./queries/webhooks/events/share-event.ts";
export { personColumns, personColumnsOf } from "./queries/person-columns.ts";
export * from "./queries/snapshots/index.ts";
export * from "./queries/snapshots/apply-plan.ts";
export * from "./queries/snapshots/canonical-instant.ts";
export * from "./queries/snapshots/find-earlier-snapshot.ts";
export * from "./queries/snapshots/find-spent-snapshot-jobs.ts";
export * from "./queries/snapshots/insert-debts.ts";
export * from "./queries/snapshots/load-current-debts.ts";
export * from "./queries/snapshots/load-snapshot.ts";
export * from "./queries/snapshots/mark-snapshot.ts";
export * from "./queries/snapshots/batch-savepoint.ts";
export * from "./queries/snapshots/matched-debts.ts";
export * from "./queries/snapshots/omitted-debts.ts";
export * from "./queries/snapshots/record-payments.ts";
export * from "./queries/snapshots/replace-plans.ts";
export * from "./queries/snapshots/update-debts.ts";
export * from "./queries/webhooks/index.ts";
export * from "./queries/worker-leases/index.ts";
export * from "./repository-root.ts";
export * from "./sqlstate.ts";
export * from "./statement-queue.ts";
export * from "./table-classes.ts";
export type * from "./schema.ts";
