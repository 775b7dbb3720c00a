/** Writes one benchmark's section of docs/benchmarks.md, between its markers, keeping the others (every package's benchmarks). */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "@dc/db";

const file = join(repositoryRoot(), "docs", "benchmarks.md");
const HEADER = "# Benchmarks\n\nFigures measured on this project's machines; each section is rewritten by the benchmark that produced it.\n";

export const writeSection = (name: string, body: string): void => {
  const begin = `<!-- bench:${name}:begin -->`;
  const end = `<!-- bench:${name}:end -->`;
  const current = existsSync(file) ? readFileSync(file, "utf8") : HEADER;
  const section = `${begin}\n${body}\n${end}`;
  const pattern = new RegExp(`${begin}[\\s\\S]*?${end}`);
  writeFileSync(file, pattern.test(current) ? current.replace(pattern, section) : `${current.trimEnd()}\n\n${section}\n`);
};
