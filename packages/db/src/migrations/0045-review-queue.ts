/**
 * The company's review queue (docs/decisions/0680):
 *
 * - `debtor_requests.content`: what the debtor's page recorded beside the
 *   free text of `message`: a plan proposal's schedule
 *   (`{installments: [{amount_minor, payment_date}]}`, `Review.PlanProposal`),
 *   a dispute's reason. Written by the debtor's page, which may have added
 *   the same column first: `if not exists` keeps one column either way.
 * - `review_note` on both tables: the company's optional note of its review.
 * - `(company_id, review_status, created_at desc, id desc)` on both tables:
 *   `GET /todos` filters by status and walks newest first, so a page after a
 *   cursor is a range scan of the status's rows whatever its depth.
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
    alter table debtor_requests add column if not exists content jsonb not null default '{}'::jsonb;
    alter table debtor_requests add column review_note text;
    alter table ai_detections add column review_note text;
    create index debtor_requests_review_idx on debtor_requests (company_id, review_status, created_at desc, id desc);
    create index ai_detections_review_idx on ai_detections (company_id, review_status, created_at desc, id desc);
  `.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
    drop index if exists ai_detections_review_idx;
    drop index if exists debtor_requests_review_idx;
    alter table ai_detections drop column if exists review_note;
    alter table debtor_requests drop column if exists review_note;
    alter table debtor_requests drop column if exists content;
  `.execute(db);
};
