/**
 * The domain of the debt-collection service: pure rules and schemas shared
 * by the api, the worker, the tests and the client's pre-validation. Each
 * module is one concept, consumed as a namespace.
 */
export * as Channel from "./Channel.ts";
export * as ComplianceGuard from "./ComplianceGuard.ts";
export * as ComplianceSettings from "./ComplianceSettings.ts";
export * as Contact from "./Contact.ts";
export * as DailyWindow from "./DailyWindow.ts";
export * as DebtorLanguage from "./DebtorLanguage.ts";
export * as DisputeAttachment from "./DisputeAttachment.ts";
export * as Dates from "./Dates.ts";
export * as DebtorTimeZone from "./DebtorTimeZone.ts";
export * as DebtStatus from "./DebtStatus.ts";
export * as Followup from "./Followup.ts";
export * as IdempotencyKey from "./IdempotencyKey.ts";
export * as InboundReply from "./InboundReply.ts";
export * as Ids from "./Ids.ts";
export * as Money from "./Money.ts";
export * as PlanProposal from "./PlanProposal.ts";
export * as ParseIssues from "./ParseIssues.ts";
export * as PaymentPlan from "./PaymentPlan.ts";
export * as Reconciliation from "./Reconciliation.ts";
export * as ReconciliationPlan from "./ReconciliationPlan.ts";
export * as Retention from "./Retention.ts";
export * as Review from "./Review.ts";
export * as Snapshot from "./Snapshot.ts";
export * as SnapshotErrors from "./SnapshotErrors.ts";
export * as SnapshotRow from "./SnapshotRow.ts";
export * as Subscription from "./Subscription.ts";
export * as TimelineDefinition from "./TimelineDefinition.ts";
