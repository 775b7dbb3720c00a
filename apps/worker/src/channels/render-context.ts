/**
 * The fields a step's templates may use (docs/templates.md), built from a
 * debt's row: names, the amounts formatted with their currency in the
 * debtor's language, the due date written out, the payment link, the
 * creditor and the company. The debtor's language is French where French is
 * what a letter to that address is written in (docs/decisions/0616),
 * English everywhere else.
 */
import { DebtorLanguage, Money, type TimelineDefinition } from "@dc/domain";

export type Language = DebtorLanguage.Language;
export const { languages, languageOf } = DebtorLanguage;
const { countryOf } = DebtorLanguage;

/** What a context is built from: the debt's columns, with its creditor's and company's names. */
export interface DebtFields {
  readonly civility: string | null;
  readonly firstname: string | null;
  readonly lastname: string | null;
  readonly debtor_company: string | null;
  readonly country: string | null;
  readonly postal_code: string | null;
  readonly phone: string | null;
  readonly amount_minor: number;
  readonly balance_minor: number;
  readonly currency: string;
  /** `YYYY-MM-DD`. */
  readonly due_date: string | null;
  readonly payment_link: string | null;
  readonly invoice_reference: string | null;
  readonly object: string | null;
  readonly creditor_name: string | null;
  readonly company_name: string;
}

/** The template fields; a missing one is null and renders as nothing. */
export interface RenderContext {
  readonly language: Language;
  readonly civility: string | null;
  readonly firstname: string | null;
  readonly lastname: string | null;
  /** Civility, first and last names joined, or the debtor company when there are none. */
  readonly name: string | null;
  readonly debtor_company: string | null;
  /** What is owed now (the balance), with its currency: `€1,234.56`, `1 234,56 €`. */
  readonly amount: string;
  /** The invoice's original amount, formatted the same way. */
  readonly invoice_amount: string;
  /** ISO 4217 code. */
  readonly currency: string;
  /** Written out in the debtor's language: `15 March 2025`, `15 mars 2025`. */
  readonly due_date: string | null;
  readonly payment_link: string | null;
  readonly invoice_reference: string | null;
  readonly object: string | null;
  /** The creditor's name, or the company's when the creditor has none. */
  readonly creditor: string;
  /** The company (tenant) collecting. */
  readonly company: string;
}

/**
 * Intl objects are costly to build (a tenth of a millisecond each) and the
 * engine renders thousands of messages a second in a handful of locales and
 * currencies: each is built once per key.
 */
const memo = <T>(build: (key: string) => T): ((key: string) => T) => {
  const cache = new Map<string, T>();
  return (key) => {
    let value = cache.get(key);
    if (value === undefined) {
      if (cache.size >= 1_000) cache.clear();
      value = build(key);
      cache.set(key, value);
    }
    return value;
  };
};

/** The Intl locale of a language for a debtor in `country` (`fr-CH`, `en-GB`...). */
const canonicalLocale = memo((tag: string): string | null => {
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? null;
  } catch {
    return null;
  }
});
const localeOf = (language: Language, country: string | null): string => {
  const fallback = language === "fr" ? "fr-FR" : "en-GB";
  return country === null ? fallback : (canonicalLocale(`${language}-${country}`) ?? fallback);
};

const numberFormat = memo((key: string): Intl.NumberFormat | null => {
  const [locale = "", currency = ""] = key.split("|");
  try {
    return new Intl.NumberFormat(locale, { style: "currency", currency });
  } catch {
    return null;
  }
});
const formatAmount = (minor: number, currency: string, locale: string): string =>
  numberFormat(`${locale}|${currency}`)?.format(Money.fromMinor(minor, currency)) ??
  `${Money.format(minor, currency)} ${currency}`;

const dateFormat = memo((locale: string) => new Intl.DateTimeFormat(locale, { dateStyle: "long", timeZone: "UTC" }));
const formatDate = (date: string | null, locale: string): string | null => {
  if (date === null || !/^\d{4}-\d{2}-\d{2}$/.test(date)) return date;
  return dateFormat(locale).format(new Date(`${date}T00:00:00Z`));
};

const present = (value: string | null): string | null => {
  const text = value?.trim() ?? "";
  return text === "" ? null : text;
};

/** The template fields of a debt; `language` forces the language (a step's `configuration.language`). */
export const renderContextOf = (debt: DebtFields, language: Language = languageOf(debt)): RenderContext => {
  const locale = localeOf(language, countryOf(debt));
  const personal = [debt.firstname, debt.lastname].map(present).filter((part) => part !== null);
  const names = personal.length > 0 ? [present(debt.civility), ...personal].filter((part) => part !== null) : [];
  const company = present(debt.company_name) ?? debt.company_name;
  return {
    language,
    civility: present(debt.civility),
    firstname: present(debt.firstname),
    lastname: present(debt.lastname),
    name: names.length > 0 ? names.join(" ") : present(debt.debtor_company),
    debtor_company: present(debt.debtor_company),
    amount: formatAmount(debt.balance_minor, debt.currency, locale),
    invoice_amount: formatAmount(debt.amount_minor, debt.currency, locale),
    currency: debt.currency,
    due_date: formatDate(present(debt.due_date), locale),
    payment_link: present(debt.payment_link),
    invoice_reference: present(debt.invoice_reference),
    object: present(debt.object),
    creditor: present(debt.creditor_name) ?? company,
    company,
  };
};

/** The template fields of a debt for a step: the step's `configuration.language` (`en` or `fr`) overrides the debtor's. */
export const renderContextFor = (step: TimelineDefinition.Step, debt: DebtFields): RenderContext => {
  const configured = step.configuration["language"];
  return renderContextOf(debt, languages.find((language) => language === configured) ?? languageOf(debt));
};
