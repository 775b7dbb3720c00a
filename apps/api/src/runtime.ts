/**
 * The V8 heap settings the api runs with (docs/decisions/0015), set as
 * NODE_OPTIONS by the api image and by the benchmarks, and by `pnpm start`.
 * A test holds those places equal to this value.
 *
 * Without an explicit old-space limit, V8 sizes heap growth from the
 * machine's memory (24 GiB here) and lets garbage pile up to several times
 * the live heap. A 1 GiB limit keeps growth proportionate and still leaves
 * ample room for concurrent 10 MiB snapshot bodies. A 16 MiB semi-space
 * bounds the young generation without making scavenges frequent.
 */
export const API_NODE_OPTIONS = "--max-old-space-size=1024 --max-semi-space-size=16";
