/**
 * A write committed between two reads of one request, made deterministic by
 * PostgreSQL's lock queue rather than by timing. For the tests that a list's
 * `total` and page come from one snapshot (docs/decisions/0003): run the api
 * with a one-connection pool, so a handler's statements reach the database
 * one after another, then:
 *
 * 1. a gate transaction holds `ACCESS EXCLUSIVE` on `table`, so the request's
 *    first statement that reads it waits in the lock queue;
 * 2. a writer transaction asks for the same lock and queues behind it;
 * 3. the gate commits: the waiting read is granted (it comes first in the
 *    queue) and takes its snapshot; the writer waits until that statement's
 *    transaction ends, and is granted as it ends, before the client hears
 *    the result;
 * 4. any next statement of the request that reads `table` now queues behind
 *    the writer, which writes and commits: that statement's snapshot sees
 *    the write, the first one's did not.
 *
 * When the request reads `table` in one statement only, the writer is
 * granted after the request's reads and the response sees none of the write.
 */
import pg from "pg";

/** Polls `condition` until it holds; fails after 10 s instead of hanging. */
const until = async (what: string, condition: () => Promise<boolean>): Promise<void> => {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/**
 * Sends `request`, commits `write` (run in the writer's transaction) right
 * after the request's first statement that reads `table`, and returns the
 * request's answer.
 */
export const writeBetweenReads = async <T>(
  databaseUrl: string,
  table: string,
  request: () => Promise<T>,
  write: (writer: pg.Client) => Promise<unknown>,
): Promise<T> => {
  const gate = new pg.Client({ connectionString: databaseUrl });
  const writer = new pg.Client({ connectionString: databaseUrl });
  const observer = new pg.Client({ connectionString: databaseUrl });
  await Promise.all([gate.connect(), writer.connect(), observer.connect()]);
  try {
    const pidOf = async (client: pg.Client) =>
      (await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
    const [gatePid, writerPid, observerPid] = [await pidOf(gate), await pidOf(writer), await pidOf(observer)];
    const waiting = async (condition: string, ...values: unknown[]) =>
      (
        await observer.query(`select 1 from pg_locks where relation = $1::regclass and not granted and ${condition}`, [
          table,
          ...values,
        ])
      ).rowCount! > 0;

    await gate.query("begin");
    await gate.query(`lock table ${table} in access exclusive mode`);
    const answer = request();
    await until(`the request waits for ${table}`, () =>
      waiting("mode = 'AccessShareLock' and pid <> all($2::int[])", [gatePid, writerPid, observerPid]),
    );
    await writer.query("begin");
    const writerGranted = writer.query(`lock table ${table} in access exclusive mode`);
    await until(`the writer queues for ${table}`, () => waiting("pid = $2", writerPid));
    await gate.query("commit");
    await writerGranted;
    await write(writer);
    await writer.query("commit");
    return await answer;
  } finally {
    await Promise.all([gate.end(), writer.end(), observer.end()]);
  }
};
