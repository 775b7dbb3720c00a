/**
 * Records what a call analysis (or a reply) shows: one `ai_detections` row
 * per detection, `suggested`, linked to its followup and debt, in one
 * statement for a whole batch (docs/decisions/0641). A suggested
 * `ai_dispute` is written `blocking`: the engine's guard holds the debt
 * until it is reviewed or the hold is lifted (decision 0602,
 * `liftDetectionHolds`); an `objection` only awaits review. The caller
 * writes each followup's detections once (the outcome transaction applies an
 * outcome to a followup still `in_progress` only), so nothing here dedupes.
 */
import { sql } from "kysely";
import { integerArray, textArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";

export type DetectionType = "ai_dispute" | "objection";

export interface AiDetectionInput {
  readonly companyId: number;
  readonly debtId: number;
  readonly followupId: number | null;
  readonly type: DetectionType;
  /** What the debtor said (or the call's summary), shown in the review queue. */
  readonly excerpt: string | null;
  /** When it was detected, on the company's clock (a sandbox company's own). */
  readonly at: Date;
}

/** Inserts the detections; returns how many. */
export const insertAiDetections = async (
  trx: DbTransaction,
  detections: ReadonlyArray<AiDetectionInput>,
): Promise<number> => {
  if (detections.length === 0) return 0;
  const { rows } = await sql<{ id: number }>`
    insert into ai_detections (company_id, debt_id, followup_id, type, review_status, blocking, excerpt, created_at)
    select i.company_id, i.debt_id, i.followup_id, i.type, 'suggested', i.type = 'ai_dispute', i.excerpt, i.at
    from unnest(
      ${integerArray(detections.map((d) => d.companyId))}::int8[],
      ${integerArray(detections.map((d) => d.debtId))}::int8[],
      ${integerArray(detections.map((d) => d.followupId))}::int8[],
      ${textArray(detections.map((d) => d.type))}::text[],
      ${textArray(detections.map((d) => d.excerpt))}::text[],
      ${textArray(detections.map((d) => d.at.toISOString()))}::timestamptz[]
    ) as i (company_id, debt_id, followup_id, type, excerpt, at)
    returning id
  `.execute(trx);
  return rows.length;
};
