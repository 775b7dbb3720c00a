/**
 * The language the platform speaks to a debtor: French where French is what
 * a letter to that address is written in (docs/decisions/0616), English
 * everywhere else. The engine's messages and the debtor page both use it.
 */
import * as DebtorTimeZone from "./DebtorTimeZone.ts";

export type Language = "en" | "fr";
export const languages: ReadonlyArray<Language> = ["en", "fr"];

/**
 * Countries whose debtors get French (ISO 3166 alpha-2), besides the partly
 * French ones of `languageOf`: France with its overseas departments,
 * collectivities and territories; Monaco; Luxembourg, whose administration
 * writes in French; and the countries where French is an official language
 * of the administration.
 */
const frenchCountries: ReadonlySet<string> = new Set(
  (
    "FR GP MQ GF RE YT PM BL MF NC PF WF TF MC LU " +
    "BJ BF BI CM CF TD KM CG CD CI DJ GA GN HT MG ML NE SN SC TG VU RW"
  ).split(" "),
);

/** The debt's country (a code or a name), or else its phone's, as an ISO alpha-2 code. */
export const countryOf = (debt: { readonly country: string | null; readonly phone: string | null }): string | null =>
  DebtorTimeZone.countryCode(debt.country) ?? DebtorTimeZone.phoneCountry(debt.phone, null);

/**
 * The language of a debtor's messages. Belgium: French for Brussels and
 * Wallonia (postal codes 1000-1499 and 4000-7999), English for Flanders,
 * whose Dutch the platform does not write. Switzerland: French for Romandy
 * (1000-2999). Canada: French for Quebec (postal codes G, H and J). Without
 * a country the platform recognises, the phone's country decides.
 */
export const languageOf = (debt: {
  readonly country: string | null;
  readonly postal_code: string | null;
  readonly phone: string | null;
}): Language => {
  const code = countryOf(debt);
  const postal = (debt.postal_code ?? "").trim().toUpperCase();
  const postalNumber = /^\d{4}$/.test(postal) ? Number(postal) : undefined;
  switch (code) {
    case null:
      return "en";
    case "BE":
      return postalNumber !== undefined &&
        ((postalNumber >= 1000 && postalNumber < 1500) || (postalNumber >= 4000 && postalNumber < 8000))
        ? "fr"
        : "en";
    case "CH":
      return postalNumber !== undefined && postalNumber >= 1000 && postalNumber < 3000 ? "fr" : "en";
    case "CA":
      return /^[GHJ]/.test(postal) ? "fr" : "en";
    default:
      return frenchCountries.has(code) ? "fr" : "en";
  }
};

