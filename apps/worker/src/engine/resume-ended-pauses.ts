/**
 * Resumes enrollments whose timed pause has ended on their company's clock
 * (a pause with `until`, a promise to pay whose date passed without the
 * debt being paid), one transaction per company found.
 */
import { type ClaimScope, findEndedPauses, resumeEnrollments } from "@dc/db";
import { byCompany } from "./by-company.ts";
import type { EngineDependencies } from "./engine-dependencies.ts";
import { inTransaction } from "./in-transaction.ts";

/** Resumes at most one batch of ended pauses of `scope`; returns how many. */
export const resumeEndedPauses = async (dependencies: EngineDependencies, scope: ClaimScope): Promise<number> => {
  const { db, clock, engine } = dependencies;
  const ended = await findEndedPauses(db, scope, engine.batchSize);
  let resumed = 0;
  for (const [companyId, pauses] of byCompany(ended, (pause) => pause.companyId)) {
    resumed += await inTransaction(dependencies, (trx) =>
      resumeEnrollments(trx, { companyId, debtIds: pauses.map((pause) => pause.debtId), now: clock.now() }),
    );
  }
  return resumed;
};
