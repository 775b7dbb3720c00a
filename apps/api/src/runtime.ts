/**
 * The memory settings the api runs with (docs/decisions/0015), set by the
 * api image, by `pnpm start` and by the benchmarks. A test holds those
 * places equal to these values.
 *
 * Without an explicit old-space limit, V8 sizes heap growth from the
 * machine's memory (24 GiB here) and lets garbage pile up to several times
 * the live heap. A 1 GiB limit keeps growth proportionate and still leaves
 * ample room for concurrent 10 MiB snapshot bodies. A 16 MiB semi-space
 * bounds the young generation without making scavenges frequent.
 */
export const API_NODE_OPTIONS = "--max-old-space-size=1024 --max-semi-space-size=16";

/**
 * glibc's malloc arenas, as the environment variable `MALLOC_ARENA_MAX`.
 * By default glibc creates up to eight arenas per core for the threads that
 * allocate (libuv's pool, V8's compiler and collector threads), and keeps
 * freed memory in each. With two, the resource benchmark's api peaked at
 * 250 MB instead of 282 MB, at the same throughput.
 */
export const API_MALLOC_ARENA_MAX = "2";

