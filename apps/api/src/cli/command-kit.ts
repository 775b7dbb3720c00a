/**
 * What every admin CLI command shares: the context it runs in, its parsed
 * flags and how it reads them, and the error whose message goes to stderr.
 */
import { type Db, findRowCompany, findRowId } from "@dc/db";
import type { DomainIds as Ids } from "@dc/db";
import type { Ids as IdKinds } from "@dc/domain";

export class CliError extends Error {
  override readonly name = "CliError";
}

export type Flags = Readonly<Record<string, string | boolean | ReadonlyArray<string> | undefined>>;

export interface CommandContext {
  readonly db: Db;
  readonly ids: Ids;
  readonly now: () => Date;
  /** The text of the file at `path`, or of standard input when `path` is undefined. */
  readonly readInput: (path: string | undefined) => Promise<string>;
}

export type Command = (context: CommandContext, flags: Flags) => Promise<Record<string, unknown>>;

export const text = (flags: Flags, name: string): string | undefined => {
  const value = flags[name];
  if (Array.isArray(value)) throw new CliError(`--${name} may be given once`);
  return value === undefined || value === "" || typeof value === "boolean" ? undefined : (value as string);
};

export const required = (flags: Flags, name: string): string => {
  const value = text(flags, name);
  if (value === undefined) throw new CliError(`--${name} is required`);
  return value;
};

export const list = (flags: Flags, name: string): ReadonlyArray<string> => {
  const value = flags[name];
  return value === undefined || typeof value === "boolean"
    ? []
    : typeof value === "string"
      ? [value]
      : (value as ReadonlyArray<string>);
};

/** Whether a boolean flag (`--sandbox`, `--default`) was given. */
export const flag = (flags: Flags, name: string): boolean => flags[name] === true;

/** Decodes an id flag of `kind` and checks the row exists. */
export const existingId = async (
  context: CommandContext,
  flags: Flags,
  name: string,
  kind: IdKinds.Kind,
  table: "companies" | "timelines" | "creditors",
): Promise<number> => {
  const encoded = required(flags, name);
  const key = context.ids.decode(kind, encoded);
  const id = key === undefined ? undefined : await findRowId(context.db, table, key);
  if (id === undefined) throw new CliError(`--${name}: no ${kind} with id ${encoded}`);
  return id;
};

/** Fails unless the timeline or creditor `id` belongs to `companyId`. */
export const companyRowOf = async (
  context: CommandContext,
  companyId: number,
  table: "timelines" | "creditors",
  id: number,
  kind: IdKinds.Kind,
): Promise<void> => {
  if ((await findRowCompany(context.db, table, id)) !== companyId)
    throw new CliError(`the ${kind} belongs to another company`);
};
