/**
 * The ISO 4217 exponent rule of `Money` (domain) in SQL, so a query moves
 * between minor and major units with exact numeric arithmetic: one place for
 * the rule, for every query that needs it.
 */
import { Money } from "@dc/domain";
import { type RawBuilder, sql } from "kysely";

const exponentClasses = (() => {
  const byExponent = new Map<number, string[]>();
  for (const [code, exponent] of Object.entries(Money.exponents)) {
    if (exponent !== 2) byExponent.set(exponent, [...(byExponent.get(exponent) ?? []), code]);
  }
  return [...byExponent].sort(([a], [b]) => a - b);
})();

/** `valueOf(exponent)` of the currency in `currency` (a column or expression); exponent 2 for a code missing from the table. */
const byExponent = (currency: RawBuilder<unknown>, valueOf: (exponent: number) => RawBuilder<unknown>) =>
  sql`(case ${sql.join(
    exponentClasses.map(([exponent, codes]) => sql`when ${currency} = any(${codes}::text[]) then ${valueOf(exponent)}`),
    sql` `,
  )} else ${valueOf(2)} end)`;

/** 10^exponent of the currency in `currency`, as numeric. */
export const minorFactorOf = (currency: RawBuilder<unknown>): RawBuilder<unknown> =>
  byExponent(currency, (exponent) => sql`${10 ** exponent}::numeric`);

/**
 * `minor` (integer minor units of `currency`) in major units, exactly: a
 * product with 10^-exponent, since a numeric division rounds to a scale of its own.
 */
export const majorUnitsOf = (minor: RawBuilder<unknown>, currency: RawBuilder<unknown>): RawBuilder<unknown> =>
  sql`(${minor} * ${byExponent(currency, (exponent) => sql`${`1e-${exponent}`}::numeric`)})`;
