/**
 * `detect_civility` (docs/decisions/0103): when a debt has no civility, a
 * leading title written into the first or last name ("Mme Claire",
 * "Dr. House") is moved into `civility`. Nothing is guessed from the name
 * itself. A pure rule kept here until the domain package grows one.
 */
import type { civilities } from "@dc/contract";

type Civility = (typeof civilities)[number];

const titles: Readonly<Record<string, Civility>> = {
  mr: "Mr",
  "mr.": "Mr",
  mister: "Mr",
  mrs: "Mrs",
  "mrs.": "Mrs",
  ms: "Ms",
  "ms.": "Ms",
  miss: "Miss",
  mx: "Mx",
  "mx.": "Mx",
  dr: "Dr",
  "dr.": "Dr",
  "m.": "M.",
  monsieur: "M.",
  mme: "Mme",
  "mme.": "Mme",
  madame: "Mme",
  mlle: "Mlle",
  "mlle.": "Mlle",
  mademoiselle: "Mlle",
};

const split = (name: string | null): { title: Civility; rest: string } | undefined => {
  const match = /^\s*(\S+)\s+(\S.*)$/.exec(name ?? "");
  const title = match?.[1] === undefined ? undefined : titles[match[1].toLowerCase()];
  return title === undefined || match?.[2] === undefined ? undefined : { title, rest: match[2].trim() };
};

export interface Names {
  readonly civility: Civility | null;
  readonly firstname: string | null;
  readonly lastname: string | null;
}

/** The names with a detected title moved into civility; unchanged when civility is set or no title leads. */
export const detectCivility = (names: Names): Names => {
  if (names.civility !== null) return names;
  const first = split(names.firstname);
  if (first !== undefined) return { ...names, civility: first.title, firstname: first.rest };
  const last = split(names.lastname);
  if (last !== undefined) return { ...names, civility: last.title, lastname: last.rest };
  return names;
};
