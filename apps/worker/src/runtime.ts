/**
 * The V8 setting the worker runs with (docs/decisions/0366), set by the
 * worker image, by `pnpm start` and by the benchmarks. A test holds those
 * places equal to this value.
 *
 * Applying a 20,000-row snapshot allocates the parsed rows, their validated
 * form, the campaign's current debts and the plan: tens of megabytes of
 * objects that live for the one job. With V8's default young generation
 * (16 MiB semi-spaces) they are scavenged several times and promoted to the
 * old generation before the job ends. 64 MiB semi-spaces let most of them
 * die young, which makes an apply faster at the same peak RSS.
 */
export const WORKER_NODE_OPTIONS = "--max-semi-space-size=64";
