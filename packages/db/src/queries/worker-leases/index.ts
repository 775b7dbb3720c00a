/** The worker pools' leases: how a pool shows it is alive, and how the sweep tells a dead one. */
export * from "./delete-expired-worker-leases.ts";
export * from "./end-worker-leases.ts";
export * from "./renew-worker-lease.ts";
