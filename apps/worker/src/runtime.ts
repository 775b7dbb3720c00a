/**
 * The V8 settings the worker runs with (docs/decisions/0366), set by the
 * worker image, by `pnpm start` and by the benchmarks. A test holds those
 * places equal to this value.
 *
 * A snapshot is applied in batches (docs/decisions/0691): each batch's rows,
 * debts, plan and statement parameters live for about a second, long
 * enough to be promoted to the old generation, and are garbage once the
 * batch is written. Without an explicit limit V8 sizes the old generation
 * from the machine's memory and lets that garbage pile up to four times
 * the live heap before collecting it. A 1 GiB limit makes V8 collect at
 * about three times the live heap, with room for `WORKER_CONCURRENCY`
 * applies at once; 16 MiB semi-spaces bound the young generation. Applies
 * run as fast as with 64 MiB semi-spaces.
 */
export const WORKER_NODE_OPTIONS = "--max-old-space-size=1024 --max-semi-space-size=16";
