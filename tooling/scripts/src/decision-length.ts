/**
 * Fails when a decision record in docs/decisions/ exceeds one page: 600
 * words, counted as `wc -w` counts them (runs of non-whitespace). A record
 * says the decision as it stands, its reason and its consequences; anything
 * longer is history, which git keeps.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "@dc/db";

const limit = 600;
const folder = join(repositoryRoot(), "docs", "decisions");
const countWords = (text: string): number => text.split(/\s+/u).filter((word) => word !== "").length;

const tooLong = readdirSync(folder)
  .filter((name) => name.endsWith(".md"))
  .sort()
  .map((name) => ({ name, words: countWords(readFileSync(join(folder, name), "utf8")) }))
  .filter(({ words }) => words > limit);

for (const { name, words } of tooLong) {
  process.stderr.write(`docs/decisions/${name}: ${words} words, more than ${limit}\n`);
}
if (tooLong.length > 0) process.exit(1);
process.stdout.write(`every decision record is at most ${limit} words\n`);
