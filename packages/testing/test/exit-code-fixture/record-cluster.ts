/**
 * What a fixture of test/exit-code.test.ts tells the test that ran it: the
 * data directory and postmaster pid of the cluster the global set-up started,
 * written as JSON to the file `DC_EXIT_CODE_FIXTURE_OUT` names.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { inject } from "vitest";
import "../../provided-context.ts";

/** The cluster a fixture run used, as the test reads it back. */
export interface FixtureCluster {
  readonly dataDirectory: string;
  readonly postmasterPid: number;
}

export const recordCluster = async (): Promise<void> => {
  const out = process.env["DC_EXIT_CODE_FIXTURE_OUT"];
  if (out === undefined)
    throw new Error("DC_EXIT_CODE_FIXTURE_OUT is not set: run this fixture through test/exit-code.test.ts");
  const client = new pg.Client({ connectionString: inject("testDatabase").serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ dir: string }>("select current_setting('data_directory') as dir");
    const dataDirectory = rows[0]?.dir ?? "";
    // postmaster.pid's first line is the pid of the server's main process.
    const postmasterPid = Number(readFileSync(join(dataDirectory, "postmaster.pid"), "utf8").split("\n")[0]);
    const cluster: FixtureCluster = { dataDirectory, postmasterPid };
    writeFileSync(out, JSON.stringify(cluster));
  } finally {
    await client.end();
  }
};
