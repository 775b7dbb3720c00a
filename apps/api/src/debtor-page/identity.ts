/**
 * The light identity check before the debtor page shows anything personal
 * (docs/decisions/0671): the debtor's last name (or the debtor company's
 * name when the debt has no last name) and, as the second fact, the postal
 * code when the debt has one, otherwise the date of birth when it has one.
 * Names and codes compare case-, accent-, space- and punctuation-blind.
 */

/** Lower case, without accents, spaces, hyphens, apostrophes or dots. */
export const normalise = (text: string): string =>
  text
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[\s\-'’.]/g, "");

export interface IdentityFacts {
  readonly lastname: string | null;
  readonly debtor_company: string | null;
  readonly postal_code: string | null;
  readonly birthdate: string | null;
}

/** What the form asks for besides the name. */
export type SecondFact = "postal_code" | "birthdate" | null;

const present = (value: string | null) => (value === null || normalise(value) === "" ? null : value);

export const secondFactOf = (facts: IdentityFacts): SecondFact =>
  present(facts.postal_code) !== null ? "postal_code" : present(facts.birthdate) !== null ? "birthdate" : null;

/** Whether the answers match the debt's facts. */
export const identityMatches = (facts: IdentityFacts, name: string, second: string): boolean => {
  const expectedName = present(facts.lastname) ?? present(facts.debtor_company);
  if (expectedName === null || normalise(name) !== normalise(expectedName)) return false;
  switch (secondFactOf(facts)) {
    case "postal_code":
      return normalise(second) === normalise(facts.postal_code ?? "");
    case "birthdate":
      return second.trim() === (facts.birthdate ?? "").slice(0, 10);
    case null:
      return true;
  }
};
