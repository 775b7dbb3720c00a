/**
 * Runs a guide's shell steps as a reader pastes them: the ```sh blocks of a
 * markdown section, dedented out of their list items, in order, in one bash
 * session (`-e -o pipefail`), with a terminal's environment. Two things are
 * rewritten: the api's address (the guides' `http://localhost:3000` becomes
 * the test's) and the `.data` folder (a temporary one, so a developer's own
 * files are left alone). Blocks without the `sh` tag are not run.
 */
import { execFile } from "node:child_process";
import { dirname } from "node:path";

/** The text of `markdown` from the heading `from` up to the heading `to` (or to the end). */
export const markdownSection = (markdown: string, from: string, to?: string): string => {
  const start = markdown.indexOf(from);
  if (start === -1) throw new Error(`no section ${JSON.stringify(from)}`);
  const end = to === undefined ? -1 : markdown.indexOf(to, start);
  if (to !== undefined && end === -1) throw new Error(`no section ${JSON.stringify(to)}`);
  return end === -1 ? markdown.slice(start) : markdown.slice(start, end);
};

/** The ```sh blocks of `markdown`, each dedented by its fence's indentation. */
export const shellBlocks = (markdown: string): string[] =>
  [...markdown.matchAll(/^( *)```sh\n([\s\S]*?)^\1```$/gm)].map(([, indent = "", body = ""]) =>
    body
      .split("\n")
      .map((line) => line.slice(indent.length))
      .join("\n"),
  );

/** The names a block assigns at the start of a command (`NAME=...`, also after `;`, `&&` or `||`). */
export const assignedNames = (blocks: ReadonlyArray<string>): string[] => [
  ...new Set(
    blocks.flatMap((block) => [...block.matchAll(/(?:^|[;&|]) *([A-Za-z_]\w*)=/gm)].map(([, name = ""]) => name)),
  ),
];

export interface Rewrite {
  /** The api's address, for the guides' `http://localhost:3000`. */
  readonly apiUrl: string;
  /** A folder of the test's own, for the repository's `.data` (none: a guide that writes nothing there). */
  readonly dataDirectory?: string;
}

export const asRunHere = (block: string, { apiUrl, dataDirectory }: Rewrite) => {
  const addressed = block.replaceAll("http://localhost:3000", apiUrl);
  return dataDirectory === undefined
    ? addressed
    : addressed.replace(/(^|[\s'"(])(?:\.\/)?\.data(?=[/\s]|$)/gm, `$1${dataDirectory}`);
};

/** This process's environment without what pnpm and vitest set in it: a terminal's has none of it. */
export const terminalEnvironment = () =>
  Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(npm_|PNPM_|VITEST|NODE_ENV$|TEST$)/i.test(key)));

export interface ShellRun {
  readonly code: number;
  /** Each block's standard output, trimmed. */
  readonly outputs: string[];
  /** Standard error, without npm's warnings about this machine's own npm settings. */
  readonly stderr: string;
}

export interface RunOptions extends Rewrite {
  /** The folder the reader is in: the repository. */
  readonly cwd: string;
  /** Variables beside the terminal's (DATABASE_URL, say). */
  readonly environment?: Readonly<Record<string, string>>;
  /** Script run before the first block, rewritten like the blocks; its output counts for no block. */
  readonly before?: string;
  /** Script run after the last block, as written; its output counts as the last block's. */
  readonly after?: string;
}

/** Runs every block in one bash session; resolves with each block's output. */
export const runShellBlocks = (blocks: ReadonlyArray<string>, options: RunOptions) =>
  new Promise<ShellRun>((resolve) => {
    const script = [
      asRunHere(options.before ?? "", options),
      ...blocks.map((block, index) => `printf '\\n::block ${index}::\\n'\n${asRunHere(block, options)}`),
      options.after ?? "",
    ].join("\n");
    execFile(
      "bash",
      ["-e", "-o", "pipefail", "-c", script],
      {
        cwd: options.cwd,
        env: {
          ...terminalEnvironment(),
          PATH: `${dirname(process.execPath)}:${process.env["PATH"] ?? ""}`,
          ...options.environment,
        },
        encoding: "utf8",
        timeout: 120_000,
      },
      (error, stdout, stderr) =>
        resolve({
          code: error === null ? 0 : Number(error.code),
          // A block's output may not end its last line (curl's answers do not): each marker starts on a new one.
          outputs: stdout
            .split(/\n::block \d+::\n/)
            .slice(1)
            .map((output) => output.trim()),
          // npm's warnings about this machine's own npm settings, printed by `npx`, are not the guide's.
          stderr: stderr
            .split("\n")
            .filter((line) => !line.startsWith("npm warn "))
            .join("\n"),
        }),
    );
  });

/** The JSON values of `text`, written one after another with nothing between them (two curl answers in a row). */
export const jsonValues = (text: string): unknown[] => {
  for (let end = text.indexOf("}{") + 1; end > 0; end = text.indexOf("}{", end) + 1) {
    try {
      return [JSON.parse(text.slice(0, end)), ...jsonValues(text.slice(end))];
    } catch {
      // That "}{" was inside a string: try the next.
    }
  }
  return [JSON.parse(text)];
};
