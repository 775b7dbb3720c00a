/**
 * `pnpm bench` (packages/domain): how long the domain takes to validate and
 * cross-check a full 20,000-row snapshot (the api does this on every submit,
 * the client before every upload). Prints the best of five warm runs and
 * writes it to docs/benchmarks.md.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import * as Snapshot from "../src/Snapshot.ts";

const rows = Array.from({ length: Snapshot.MAX_ROWS }, (_, i) => ({
  internal_id: `acc-${i}`,
  invoice_reference: `inv-${i}`,
  remaining_amount: (10_000 + (i % 1000)) / 100,
  currency: "EUR",
  firstname: "Ada",
  lastname: "Lovelace",
  email: `debtor${i}@example.com`,
  phone: "+33612345678",
  ...(i % 4 === 0
    ? {
        payment_plan: {
          external_reference: `plan-${i}`,
          status: "active",
          installments: [{ external_reference: "i1", amount: (10_000 + (i % 1000)) / 100, payment_date: "2027-02-28", status: "pending" }],
        },
      }
    : {}),
}));
const body = JSON.stringify({ rows });

const time = (run: () => void): number => {
  const started = performance.now();
  run();
  return performance.now() - started;
};
const best = (run: () => void) => {
  run();
  return Math.min(...Array.from({ length: 5 }, () => time(run)));
};

const parse = best(() => JSON.parse(body));
const validate = best(() => {
  const { rows: valid } = Snapshot.validateRows(rows, { firstRowIndex: 0 });
  Snapshot.checkAcrossRows(valid);
});
const line = (label: string, ms: number) => `- ${label}: ${ms.toFixed(1)} ms`;
const report = [
  `Run on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores, Node ${process.version}. Command: \`pnpm --filter @dc/domain bench\` (best of 5 warm runs).`,
  "",
  line(`JSON.parse of the ${(body.length / 2 ** 20).toFixed(1)} MiB body`, parse),
  line("validateRows + checkAcrossRows of 20,000 rows (25% with a payment plan)", validate),
].join("\n");
process.stdout.write(`${report}\n`);

const file = join(import.meta.dirname, "..", "..", "..", "docs", "benchmarks.md");
const begin = "<!-- bench:domain-row-validation:begin -->";
const end = "<!-- bench:domain-row-validation:end -->";
const current = existsSync(file) ? readFileSync(file, "utf8") : "# Benchmarks\n";
const section = `${begin}\n## Snapshot row validation (domain)\n\n${report}\n${end}`;
const pattern = new RegExp(`${begin}[\\s\\S]*?${end}`);
writeFileSync(file, pattern.test(current) ? current.replace(pattern, section) : `${current.trimEnd()}\n\n${section}\n`);
