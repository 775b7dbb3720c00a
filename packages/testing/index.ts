export { type TestDatabase, useTestDatabase } from "./test-database.ts";
export { freePort } from "@dc/db";
export {
  type BenchRowShape,
  benchSeedRows,
  benchSnapshotRows,
  measureBalanceChangeFloor,
  measurePostgresFloor,
  SNAPSHOT_BENCH_ROWS,
} from "./snapshot-bench.ts";
export {
  armFault,
  disarmFault,
  type FaultOutcome,
  unavailableError,
  unexpectedError,
} from "./statement-faults.ts";
export { companyDigest, publicTables, rowsDigest, rowsDigests } from "./company-digest.ts";
export { type HeldTransaction, holdTransaction } from "./held-transaction.ts";
export { type BenchDatabase, type BenchDatabaseOptions, openBenchDatabase } from "./bench-database.ts";
export { writeSection } from "./bench-report.ts";
export { type ImageInstall, installAsImage } from "./image-install.ts";
export { typeScriptDiagnostics } from "./typescript-diagnostics.ts";
export {
  BLOCKED_MIGRATION_MESSAGE,
  blockedMigrationSettings,
  blockNextMigration,
  expectOneFatalMigrationLine,
  type FinishedProcess,
  hasStackFrame,
  runToEnd,
} from "./start-up-migration-failure.ts";
export { configurationTableGaps, documentedVariables } from "./documented-variables.ts";
export {
  type LostAnswer,
  type ReceivedMail,
  type Refusal,
  startTestSmtpServer,
  type TestSmtpServer,
} from "./smtp-server.ts";
export {
  type ProviderReply,
  type ProviderRequestSeen,
  type ProviderServer,
  startProviderServer,
} from "./provider-server.ts";
export { type CallEnd, type FakeRetell, startFakeRetell } from "./fake-retell.ts";
export { type FakeLob, type LobLetter, type ReceivedLetter, type SignedWebhook, startFakeLob } from "./fake-lob.ts";
export { type FakeTwilio, type FakeTwilioMessage, startFakeTwilio } from "./fake-twilio.ts";
