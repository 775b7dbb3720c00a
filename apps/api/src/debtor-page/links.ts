/**
 * The debt's `payment_link` as the api presents it (docs/decisions/0670):
 * the company's own link when it set one, otherwise the platform's signed
 * debtor page link on the public origin, signed at the clock's now.
 */
import { debtorLinks } from "@dc/crypto";
import type { Context } from "koa";
import { publicBaseUrl } from "../http/public-base-url.ts";
import type { AppServices } from "../services.ts";

/** The platform's link of a debt of the company, or undefined when the debt keeps the company's link. */
export type DebtLinkOf = (debtId: number) => string;

/** The link maker of `companyId`'s debts for this request. */
export const debtLinkOf = (services: AppServices, ctx: Context, companyId: number): DebtLinkOf => {
  const base = publicBaseUrl(services, ctx);
  const links = debtorLinks(services.config.idEncryptionKey);
  const now = services.clock.now();
  return (debtId) => links.url(base, { companyId, debtId }, now);
};
