/**
 * What the api signs debtor page links with (docs/decisions/0670): the
 * public origin and `ID_ENCRYPTION_KEY`. Reads and the debt.* webhook
 * payloads hand it to `@dc/db`'s debt presenter, which applies the one rule
 * (`debtPaymentLink` of `@dc/crypto`).
 */
import type { DebtorLinkSigner } from "@dc/crypto";
import type { DebtLinks } from "@dc/db";
import type { Context } from "koa";
import { publicBaseUrl } from "../http/public-base-url.ts";
import type { AppServices } from "../services.ts";

/** The signer of this request's links: `PUBLIC_BASE_URL`, or the request's origin without it (as media links). */
export const debtLinkSigner = (services: AppServices, ctx: Context): DebtorLinkSigner => ({
  origin: publicBaseUrl(services, ctx),
  secret: services.config.idEncryptionKey,
});

/** The links of a read: this request's signer, signing at the clock's now. */
export const readDebtLinks = (services: AppServices, ctx: Context): DebtLinks => ({
  signer: debtLinkSigner(services, ctx),
  now: services.clock.now(),
});
