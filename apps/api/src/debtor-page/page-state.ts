/**
 * What a debtor page request knows before it acts: the link checked, the
 * browser cookie, the language (the debtor's country, or `lang`), the
 * debt's page read at the company's clock, and the page's shell.
 */
import { type DebtorLinkTarget, debtorLinks, debtorPagePath } from "@dc/crypto";
import { type DebtorPageView, findDebtorPage } from "@dc/db";
import { DebtorLanguage } from "@dc/domain";
import type { Context } from "koa";
import type { AppServices } from "../services.ts";
import { browserOf } from "./session.ts";
import { type Texts, textsOf } from "./texts.ts";
import type { Shell } from "./views.ts";

export type PageState =
  | { readonly kind: "invalid" | "expired"; readonly shell: Shell }
  | {
      readonly kind: "found";
      readonly token: string;
      readonly target: DebtorLinkTarget;
      readonly browser: string;
      readonly view: DebtorPageView;
      readonly shell: Shell;
      readonly texts: Texts;
    };

const chosenLanguage = (requested: string | undefined): DebtorLanguage.Language | undefined =>
  DebtorLanguage.languages.find((language) => language === requested);

/** Reads the link `token`; `requestedLanguage` is `?lang=` or the form's `lang`. */
export const pageState = async (
  ctx: Context,
  services: AppServices,
  token: string,
  requestedLanguage: string | undefined,
): Promise<PageState> => {
  const path = debtorPagePath(token);
  const fallback = chosenLanguage(requestedLanguage) ?? "en";
  const plainShell = { language: fallback, texts: textsOf(fallback), path, companyName: null };
  const checked = debtorLinks(services.config.idEncryptionKey).check(token, services.clock.now());
  if (checked.status !== "valid") return { kind: checked.status, shell: plainShell };
  const view = await findDebtorPage(services.db, checked.target.companyId, checked.target.debtId, services.clock.now());
  if (view === undefined) return { kind: "invalid", shell: plainShell };
  const language = chosenLanguage(requestedLanguage) ?? DebtorLanguage.languageOf(view);
  const texts = textsOf(language);
  return {
    kind: "found",
    token,
    target: checked.target,
    browser: browserOf(ctx, services),
    view,
    texts,
    shell: { language, texts, path, companyName: view.company_name },
  };
};
