/**
 * Puts the repository's "generated, do not edit" line on top of a file
 * written by openapi-typescript, so that CI's drift check and readers see at
 * once where the file comes from (STYLE.md: generated files say so).
 */
import { readFileSync, writeFileSync } from "node:fs";

const NOTICE = "// Generated from packages/contract/openapi.json by `pnpm codegen` (openapi-typescript). Do not edit.";

const file = process.argv[2];
if (file === undefined) {
  process.stderr.write("usage: node scripts/prepend-notice.ts <file>\n");
  process.exit(2);
}
const text = readFileSync(file, "utf8");
writeFileSync(file, text.startsWith(NOTICE) ? text : `${NOTICE}\n${text}`);
