/**
 * `pnpm cli mail list` and `mail show`: the e-mails the development mail
 * capture server received (tooling/scripts/src/mail-capture.ts), read from
 * its directory, `.data/mail` at the repository root unless `--dir` names
 * another. They need no database. `index.jsonl` holds one summary line per
 * message in receipt order; `<id>.json` the message with its parts.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { repositoryRoot } from "@dc/db";
import { CliError, type Flags } from "./commands.ts";

/** The capture directory `pnpm start` writes. */
export const defaultMailDirectory = (): string => join(repositoryRoot(), ".data", "mail");

const idPattern = /^\d{8}T\d{9}Z-[0-9a-f]{6}$/;

interface Summary {
  readonly id: string;
  readonly envelope: { readonly to: ReadonlyArray<string> };
  readonly to: string;
}

const flag = (flags: Flags, name: string): string | undefined => {
  const value = flags[name];
  if (Array.isArray(value)) throw new CliError(`--${name} may be given once`);
  return value === undefined || value === "" ? undefined : (value as string);
};

const readText = async (path: string): Promise<string | undefined> => {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return undefined;
    throw error;
  }
};

/**
 * Captured messages, newest first: `--to` keeps those with a recipient
 * containing the text (any case: an address, or `@domain`), `--limit` the
 * first N (default 50).
 */
const list = async (directory: string, flags: Flags): Promise<Record<string, unknown>> => {
  const to = flag(flags, "to")?.toLowerCase();
  const limitText = flag(flags, "limit") ?? "50";
  const limit = Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
    throw new CliError("--limit must be an integer from 1 to 10000");
  const index = (await readText(join(directory, "index.jsonl"))) ?? "";
  const all = index
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Summary)
    .filter(
      (summary) =>
        to === undefined || [...summary.envelope.to, summary.to].some((address) => address.toLowerCase().includes(to)),
    )
    .reverse();
  return { data: all.slice(0, limit), total: all.length, directory };
};

/** One captured message with its envelope, headers' summary, text and HTML parts, and the path of its `.eml`. */
const show = async (directory: string, id: string): Promise<Record<string, unknown>> => {
  if (!idPattern.test(id)) throw new CliError(`not a captured message id: ${id}`);
  const text = await readText(join(directory, `${id}.json`));
  if (text === undefined) throw new CliError(`no captured message ${id} in ${directory}`);
  return { ...(JSON.parse(text) as Record<string, unknown>), eml: join(directory, `${id}.eml`) };
};

/** Runs `mail <verb> [id]`. */
export const mailCommand = async (
  positionals: ReadonlyArray<string>,
  flags: Flags,
): Promise<Record<string, unknown>> => {
  const directory = flag(flags, "dir") ?? defaultMailDirectory();
  const [, verb, id, ...rest] = positionals;
  if (verb === "list" && id === undefined) return list(directory, flags);
  if (verb === "show" && id !== undefined && rest.length === 0) return show(directory, id);
  throw new CliError("usage: mail list [--to TEXT] [--limit N] [--dir D] | mail show ID [--dir D]");
};
