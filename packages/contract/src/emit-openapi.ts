/** `pnpm codegen`: writes the committed OpenAPI document (packages/contract/openapi.json). */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openApiDocument } from "./document.ts";

const target = join(import.meta.dirname, "..", "openapi.json");
writeFileSync(target, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
process.stdout.write(`wrote ${target}\n`);
