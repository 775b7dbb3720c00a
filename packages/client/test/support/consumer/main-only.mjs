/**
 * The main entry on its own (test/consumer-install.test.ts runs this in a
 * project where only `@dc/client` is installed): it loads and builds a
 * client without `@dc/domain` or `effect`, and the snapshots entry says
 * which package it lacks.
 */
import { createServer } from "node:http";
import { createClient, describe, paginate } from "@dc/client";

// A port nothing listens on: one the system gave a server that is closed again.
const closed = createServer();
await new Promise((resolve) => closed.listen(0, "127.0.0.1", resolve));
const { port } = closed.address();
await new Promise((resolve) => closed.close(resolve));

const api = createClient({
  baseUrl: `http://127.0.0.1:${port}`,
  clientId: "dcc_example",
  clientSecret: "dcs_example",
  retry: false,
});
const result = await api.GET("/external-api/v1/company/profile");
process.stdout.write(`main: ${typeof createClient} ${typeof paginate} ${result.error?.kind}\n`);
process.stdout.write(
  `described: ${result.error === undefined ? "" : describe(result.error).replace(String(port), "PORT")}\n`,
);
try {
  await import("@dc/client/snapshots");
  process.stdout.write("snapshots: loaded\n");
} catch (error) {
  process.stdout.write(`snapshots: ${error.code} ${/'@dc\/domain'/.test(error.message)}\n`);
}
