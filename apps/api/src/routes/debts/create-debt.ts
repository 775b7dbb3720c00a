/**
 * POST /debts: one debt or credit note (docs/decisions/0103 to 0106). The
 * same preparation and set-based write as the batch, with a single entry:
 * its problems are a 400 naming each field, a taken internal_id a 409.
 * `debt.created` is recorded in the write's transaction (write-debts.ts).
 */
import { debtMessages, type Endpoints } from "@dc/contract";
import { findDebtView } from "@dc/db";
import { Money } from "@dc/domain";
import { Conflict, ValidationFailed } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { debtLinkSigner, readDebtLinks } from "../../debtor-page/links.ts";
import { presentDebt } from "../../presenters/present-debt.ts";
import { prepareDebts } from "./prepare-debts.ts";
import { writeDebts } from "./write-debts.ts";

const duplicate = () => new Conflict({ errorCode: "duplicate_internal_id", message: debtMessages.duplicateInternalId });

export const createDebt: HandlerOf<Endpoints["createDebt"]> = async ({
  body,
  rawBody,
  principal,
  services,
  transaction,
  ctx,
}) => {
  const { companyId } = principal;
  const inexact = Money.inexactNumbers(rawBody.toString("utf8"));
  const inexactAmount = inexact?.at(inexact.value, "amount");
  const inexactMetadata =
    inexact === undefined ? undefined : Money.firstInexactWithin(inexact, (inexact.value as { metadata?: unknown }).metadata);
  const [outcome] = await prepareDebts(services, companyId, [{ index: 0, tempId: null, body, inexactAmount, inexactMetadata }], {});
  // A keyed request's refusal is given once its key was consulted under its claim (the router):
  // a same-key twin may have created this very debt since (docs/decisions/0024).
  if (outcome === undefined || outcome.kind === "skipped") throw duplicate();
  if (outcome.kind === "failed") throw new ValidationFailed({ details: outcome.details });
  // The reply is read in the write's transaction: a failure after the commit (the
  // database going away) would answer 503 for a stored debt, whose retry then gets 409.
  // Built there too, for an Idempotency-Key records it with the write (docs/decisions/0024).
  return transaction(async (trx) => {
    const [written] = await writeDebts(trx, services.ids, debtLinkSigner(services, ctx), companyId, services.clock.now(), [outcome], null);
    if (written === undefined || !written.inserted) throw duplicate();
    const found = await findDebtView(trx, companyId, written.debtId);
    if (found === undefined) throw new Error(`debt ${written.debtId} vanished after its creation`);
    return {
      body: {
        error: false as const,
        message: debtMessages.created,
        data: {
          ...presentDebt(services.ids, found.view, found.collectionAgency, readDebtLinks(services, ctx)),
          email_validation: outcome.emailValidation,
        },
      },
    };
  });
};
