/**
 * POST /debts/batch (docs/decisions/0107): every entry is decoded and
 * checked on its own; the valid ones are written with one statement per
 * table inside one transaction, with the import_batches row that records the
 * summary, and `debt.created` for every created debt (one outbox statement,
 * write-debts.ts). A bad entry never prevents the others.
 */
import { randomUUID } from "node:crypto";
import { BatchDebtEntry, debtMessages, type Endpoints } from "@dc/contract";
import { insertImportBatch, recordImportSummary } from "@dc/db";
import { Money } from "@dc/domain";
import { Either, Schema } from "effect";
import { debtLinkSigner } from "../../debtor-page/links.ts";
import { issueDetails } from "../../http/decode.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { batchResult } from "./batch-result.ts";
import { type Entry, type Outcome, prepareDebts } from "./prepare-debts.ts";
import { writeDebts } from "./write-debts.ts";

const decodeEntry = Schema.decodeUnknownEither(BatchDebtEntry, { errors: "all", onExcessProperty: "error" });

const tempIdOf = (raw: unknown): string | null => {
  const tempId = typeof raw === "object" && raw !== null ? (raw as { temp_id?: unknown }).temp_id : undefined;
  return typeof tempId === "string" ? tempId : null;
};

export const createDebtsBatch: HandlerOf<Endpoints["createDebtsBatch"]> = async ({
  body,
  rawBody,
  principal,
  services,
  ctx,
  transaction,
}) => {
  const { companyId } = principal;
  const now = services.clock.now();
  const inexact = Money.inexactNumbers(rawBody.toString("utf8"));
  const rawEntries = (inexact?.value as { debts?: unknown } | undefined)?.debts;
  const inexactAmountAt = (index: number) =>
    inexact === undefined || !Array.isArray(rawEntries) ? undefined : inexact.at(rawEntries[index], "amount");
  const inexactMetadataAt = (index: number) =>
    inexact === undefined || !Array.isArray(rawEntries)
      ? undefined
      : Money.firstInexactWithin(inexact, (rawEntries[index] as { metadata?: unknown } | undefined)?.metadata);
  const entries: Entry[] = [];
  const outcomes: Outcome[] = [];
  body.debts.forEach((raw, index) => {
    const decoded = decodeEntry(raw);
    if (Either.isLeft(decoded)) {
      outcomes.push({ kind: "failed", index, tempId: tempIdOf(raw), details: issueDetails(decoded.left, "entry") });
      return;
    }
    const { temp_id, ...fields } = decoded.right;
    entries.push({
      index,
      tempId: temp_id ?? null,
      body: fields,
      inexactAmount: inexactAmountAt(index),
      inexactMetadata: inexactMetadataAt(index),
    });
  });
  const prepared = await prepareDebts(services, companyId, entries, {
    creditorId: body.creditor_id,
    acceptExpensiveDestination: body.accept_expensive_destination,
    detectCivility: body.detect_civility,
    validateEmails: body.validate_emails,
  });
  outcomes.push(...prepared);
  outcomes.sort((a, b) => a.index - b.index);

  const importId = randomUUID();
  const batchName = body.batch_name ?? null;
  return transaction(async (trx) => {
    await insertImportBatch(trx, { id: importId, companyId, batchName, now });
    const valid = outcomes.filter((outcome) => outcome.kind === "valid");
    const written = await writeDebts(trx, services.ids, debtLinkSigner(services, ctx), companyId, now, valid, importId);
    const result = batchResult(services.ids, { importId, batchName, total: body.debts.length }, outcomes, written);
    await recordImportSummary(trx, companyId, importId, result.summary);
    return { body: { error: false as const, message: debtMessages.batchProcessed, data: result } };
  });
};
