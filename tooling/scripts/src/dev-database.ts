/**
 * The development database of `pnpm dev`, hosted in a process of its own.
 *
 * `dev.ts` starts this file detached, in its own process group, so the
 * Ctrl-C a terminal sends to its foreground group reaches the api and the
 * worker but not PostgreSQL: `dev.ts` stops the two apps first and then asks
 * this process to stop the database. If `dev.ts` goes away without asking
 * (killed), the IPC channel closes and the database is stopped all the same.
 *
 * Messages: this process sends `{ url, owned }` once the database accepts
 * connections; it stops on the message `"stop"` or when the channel closes.
 */
import { resolveDevelopmentDatabase } from "@dc/db";

export interface DevelopmentDatabaseReady {
  readonly url: string;
  readonly owned: boolean;
}

const database = await resolveDevelopmentDatabase().catch((error: unknown) => {
  // An expected refusal (the port is another server's) reads better as its one line than as a stack.
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  return process.exit(1);
});
let stopping = false;
const stop = async (): Promise<void> => {
  if (stopping) return;
  stopping = true;
  await database.stop();
  process.disconnect?.();
  process.exit(0);
};
process.on("message", (message) => {
  if (message === "stop") void stop();
});
process.on("disconnect", () => void stop());
process.send?.({ url: database.url, owned: database.owned } satisfies DevelopmentDatabaseReady);
