/** The OAuth 2.0 scopes of the contract (part 5, item 7), with what each grants. */
import { Schema } from "effect";

export const scopeDescriptions = {
  "debts:read": "Read debts",
  "debts:write": "Create, update and delete debts; submit snapshots",
  "followups:read": "Read followups",
  "followups:write": "Create and update followups",
  "creditors:read": "Read creditors",
  "creditors:write": "Create, update and manage creditors",
  "debtors:read": "Read debtors",
  "debtors:write": "Create, update and manage debtors",
  "reports:read": "Reports and analytics",
  "company:read": "Company profile, statistics and credits",
  "users:read": "User information within the company",
} as const;

export type Scope = keyof typeof scopeDescriptions;

export const allScopes = Object.keys(scopeDescriptions) as ReadonlyArray<Scope>;

export const Scope = Schema.Literal(...(allScopes as [Scope, ...Scope[]]));

export const isScope = (value: string): value is Scope => Object.hasOwn(scopeDescriptions, value);

/** Parses a space-separated scope list (RFC 6749 3.3); duplicates collapse, order is kept. */
export const parseScopeList = (value: string): { readonly scopes: ReadonlyArray<Scope>; readonly unknown: ReadonlyArray<string> } => {
  const words = [...new Set(value.split(" ").filter((word) => word !== ""))];
  return { scopes: words.filter(isScope), unknown: words.filter((word) => !isScope(word)) };
};
