/**
 * What a letter (`postmail`) carries besides its rendered text
 * (docs/decisions/0650): the debtor's postal address in parts, as a
 * print-and-mail provider takes it, and the facts the page states in its
 * summary (creditor, amount, due date, payment link), formatted in the
 * letter's language. A letter goes out only to a complete address: a name,
 * a street line, a postal code, a city and a country the platform
 * recognises.
 */
import { DebtorTimeZone } from "@dc/domain";
import type { RenderContext } from "./render-context.ts";

export interface PostalAddress {
  /** The debtor's civility and names, or null for a company without a contact name. */
  readonly name: string | null;
  readonly company: string | null;
  /** Street number and street, or the free-form address. */
  readonly line1: string | null;
  readonly postalCode: string | null;
  readonly city: string | null;
  /** ISO 3166 alpha-2, or null when the debt's country is missing or not recognised. */
  readonly country: string | null;
}

export interface LetterParts {
  readonly to: PostalAddress;
  readonly creditor: string;
  readonly company: string;
  /** The balance, formatted with its currency in the letter's language. */
  readonly amount: string;
  readonly dueDate: string | null;
  readonly paymentLink: string | null;
  readonly invoiceReference: string | null;
}

/** The debt columns an address is built from. */
export interface AddressColumns {
  readonly address: string | null;
  readonly street_address: string | null;
  readonly street_number: string | null;
  readonly postal_code: string | null;
  readonly city: string | null;
  readonly country: string | null;
}

const filled = (text: string | null | undefined): string | null => {
  const trimmed = text?.replace(/\s+/g, " ").trim() ?? "";
  return trimmed === "" ? null : trimmed;
};

/**
 * The letter's parts for a debt, from its columns and its template fields:
 * the payment link is the one the templates render (the company's, or else
 * the debtor page's, docs/decisions/0670), never the stored column.
 */
export const letterPartsOf = (debt: AddressColumns, context: RenderContext): LetterParts => {
  const street = [debt.street_number, debt.street_address].map(filled).filter((part) => part !== null);
  const personal = [context.civility, context.firstname, context.lastname].filter((part) => part !== null);
  return {
    to: {
      name: context.firstname !== null || context.lastname !== null ? personal.join(" ") : null,
      company: context.debtor_company,
      line1: street.length > 0 ? street.join(" ") : filled(debt.address),
      postalCode: filled(debt.postal_code),
      city: filled(debt.city),
      country: DebtorTimeZone.countryCode(filled(debt.country)),
    },
    creditor: context.creditor,
    company: context.company,
    amount: context.amount,
    dueDate: context.due_date,
    paymentLink: context.payment_link,
    invoiceReference: context.invoice_reference,
  };
};

/** The parts a complete address lacks (empty when it is complete), named for the step's error. */
export const missingAddressParts = (address: PostalAddress): ReadonlyArray<string> => [
  ...(address.name === null && address.company === null ? ["recipient name"] : []),
  ...(address.line1 === null ? ["street"] : []),
  ...(address.postalCode === null ? ["postal code"] : []),
  ...(address.city === null ? ["city"] : []),
  ...(address.country === null ? ["country"] : []),
];

/** The error of a step whose debt has no complete address: no letter is printed or sent. */
export const INCOMPLETE_ADDRESS = "incomplete_postal_address";
