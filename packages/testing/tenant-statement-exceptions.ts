/**
 * Statements of the code under test that read tenant data without naming
 * the company, on purpose (docs/decisions/0023, Exceptions): the
 * tenant-statement check (tenant-statements.ts) lets these through. Each
 * pattern is matched against the statement with its whitespace collapsed;
 * keep them narrow, and name the decision that makes each one acceptable.
 */
export interface TenantStatementException {
  readonly pattern: RegExp;
  readonly reason: string;
}

export const tenantStatementExceptions: ReadonlyArray<TenantStatementException> = [
  {
    pattern:
      /^select \(select json_build_array\(.* from \(select \* from snapshot_matched_debts where chunk_index = \$1 order by id\) chunk_debts \) as columns, \(select json_agg\(.* from snapshot_matched_installments where chunk_index = \$2 \) as installments$/,
    reason:
      "a snapshot's batch reads the temporary tables of its transaction, filled by company-scoped statements (stageMatchedDebts, docs/decisions/0691); the template has no such tables to plan against",
  },
  {
    pattern: /^with steps as \( select tp\.timeline_id, jsonb_agg\( jsonb_build_object\( 'day_offset'/,
    reason: "migration 0026 writes version 1 of every company's timelines once (docs/decisions/0600)",
  },
  {
    pattern: /^update followups set run = 1 where enrollment_id is not null$/,
    reason: "migration 0027 marks the engine's followups of every company as run 1 once (docs/decisions/0601)",
  },
  {
    pattern: /^update timelines t set is_default = false where t\.is_default and t\.archived_at is null and exists \( /,
    reason: "migration 0031 keeps one default timeline per company, across companies once (docs/decisions/0620)",
  },
  {
    pattern: /^delete from stored_objects where debtor_request_id is not null$/,
    reason:
      "migration 0046's undo removes every company's dispute attachments once, before followup_id is required again (docs/decisions/0674)",
  },
  {
    pattern: /^select "id" from "debts" where "id" = \$1$/,
    reason: "POST /followups answers 403, not 404, for a debt of another company (docs/decisions/0150)",
  },
  {
    pattern: /^select "(id|company_id)" from "(creditors|timelines)" where "id" = \$1$/,
    reason: "the admin CLI checks a creditor or timeline id it was given (docs/decisions/0010)",
  },
  {
    pattern: /^with company as \( select e\.company_id from webhook_events e where /,
    reason: "the hourly purge finds the next company with purgeable events across companies (docs/decisions/0021)",
  },
  {
    pattern: /^with company as \( -- The company of the first purgeable chunk /,
    reason:
      "the hourly purge finds the next company with purgeable chunk bodies across companies (docs/decisions/0021)",
  },
  {
    pattern: /^with company as \( select company_id from idempotency_keys where expires_at <= /,
    reason:
      "the hourly purge finds the next company with expired idempotency keys across companies (docs/decisions/0024)",
  },
  {
    pattern: /^with company as \( select company_id from snapshots where status = 'uploading' and updated_at < /,
    reason:
      "the staged-upload expiry finds the next company with an idle upload across companies (docs/decisions/0022)",
  },
  {
    pattern:
      /^select f\.company_id, f\.id, f\.debt_id, f\.enrollment_id from followups f where f\.status = 'scheduled' and f\.enrollment_id is not null and not f\.sandbox and f\.scheduled_at <= \$1::timestamptz order by /,
    reason: "the engine's live sweep claims the due followups of every live company by time (docs/decisions/0600)",
  },
  {
    pattern:
      /^select f\.company_id, f\.id from followups f where f\.status = 'in_progress' and f\.enrollment_id is not null and f\.updated_at < \$1::timestamptz order by /,
    reason: "the engine's recovery claims stale sends of every company by age (docs/decisions/0605)",
  },
  {
    pattern:
      /^select e\.company_id, e\.debt_id from enrollments e join companies c on c\.id = e\.company_id and not c\.sandbox where e\.state = 'paused' and e\.paused_until is not null and e\.paused_until <= \$1::timestamptz order by /,
    reason: "the engine's live sweep resumes the ended timed pauses of every live company (docs/decisions/0600)",
  },
  {
    pattern:
      /^select least\( \(select f\.scheduled_at from followups f where f\.status = 'scheduled' and f\.enrollment_id is not null and not f\.sandbox /,
    reason:
      "the engine's live sweep reads when any live company next has work, and stale sends (docs/decisions/0600, 0605)",
  },
  {
    pattern: /^select status, count\(\*\) as count from snapshots group by status$/,
    reason: "the api's snapshots_by_status gauge counts every company's snapshots (its help: all companies)",
  },
];
