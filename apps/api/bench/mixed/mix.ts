/**
 * The mixed-load request mix, driven by one autocannon instance against one
 * api process: each request picks its operation at random by weight (reads,
 * debt creation, followups, one-request snapshot submits), for a random
 * tenant. Every response is tallied by operation and status, checked for the
 * contract's envelope, and every accepted write is recorded, so the run can
 * be checked against the database afterwards (verify.ts).
 */
import autocannon from "autocannon";

export type Operation =
  | "list_debts"
  | "get_debt"
  | "list_creditors"
  | "company_profile"
  | "create_debt"
  | "create_followup"
  | "submit_snapshot";

/** Share of each operation in the mix (percent). */
export const MIX: ReadonlyArray<{ readonly operation: Operation; readonly label: string; readonly weight: number }> = [
  { operation: "list_debts", label: "GET /debts?limit=20", weight: 25 },
  { operation: "get_debt", label: "GET /debts/{id}", weight: 25 },
  { operation: "list_creditors", label: "GET /creditors", weight: 10 },
  { operation: "company_profile", label: "GET /company/profile", weight: 10 },
  { operation: "create_debt", label: "POST /debts", weight: 15 },
  { operation: "create_followup", label: "POST /followups", weight: 13 },
  { operation: "submit_snapshot", label: "PUT /campaigns/{ref}/snapshots/{ref} (5 rows)", weight: 2 },
];

/** Rows per snapshot submit; the identities are fixed per campaign so the campaign stays small. */
export const SNAPSHOT_ROWS = 5;

export interface LoadTenant {
  readonly token: string;
  readonly campaign: string;
  /** Encrypted ids of seeded debts of this tenant, read and followed up at random. */
  readonly debtIds: ReadonlyArray<string>;
}

export interface MixInput {
  readonly baseUrl: string;
  readonly tenants: ReadonlyArray<LoadTenant>;
  readonly connections: number;
  /** Requests per second over all connections of this instance; unset: as fast as the connections go (closed loop). */
  readonly overallRate?: number;
  readonly durationSeconds: number;
  /** Unique per instance and step: prefixes every internal_id, call_id and snapshot reference written. */
  readonly tag: string;
}

/** Accepted writes, as the api acknowledged them. */
export interface AcceptedWrites {
  readonly debts: Array<{ readonly id: string; readonly internalId: string }>;
  readonly followups: Array<{ readonly id: string; readonly callId: string }>;
  readonly snapshots: Array<{ readonly campaign: string; readonly reference: string }>;
}

export interface MixOutput {
  /** autocannon's raw result (`skipAggregateResult`), to aggregate with the other instance's. */
  readonly raw: autocannon.Result;
  /** operation -> status -> count. */
  readonly statuses: Record<string, Record<string, number>>;
  /** Responses whose body is not the contract's JSON envelope (or an error envelope whose `code` is not the status). */
  readonly nonEnvelope: number;
  /** A few unexpected responses (not 2xx, not 429), for the report. */
  readonly unexpected: Array<string>;
  readonly accepted: AcceptedWrites;
}

interface Context {
  operation?: Operation;
}

const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(Math.random() * items.length)]!;

const totalWeight = MIX.reduce((sum, entry) => sum + entry.weight, 0);
const pickOperation = (): Operation => {
  let at = Math.random() * totalWeight;
  for (const entry of MIX) {
    at -= entry.weight;
    if (at < 0) return entry.operation;
  }
  return MIX[0]!.operation;
};

const PREFIX = "/external-api/v1";

/** Runs one autocannon instance with the mix; resolves with its tallies once `durationSeconds` have passed. */
export const runMix = async (input: MixInput): Promise<MixOutput> => {
  const statuses: Record<string, Record<string, number>> = {};
  const unexpected: string[] = [];
  const accepted: AcceptedWrites = { debts: [], followups: [], snapshots: [] };
  let nonEnvelope = 0;
  let sequence = 0;

  const build = (request: autocannon.Request, context: Context): autocannon.Request => {
    const operation = pickOperation();
    context.operation = operation;
    const tenant = pick(input.tenants);
    const n = sequence++;
    const headers = { authorization: `Bearer ${tenant.token}`, "content-type": "application/json" };
    switch (operation) {
      case "list_debts":
        return { ...request, method: "GET", path: `${PREFIX}/debts?limit=20`, headers, body: "" };
      case "get_debt":
        return { ...request, method: "GET", path: `${PREFIX}/debts/${pick(tenant.debtIds)}`, headers, body: "" };
      case "list_creditors":
        return { ...request, method: "GET", path: `${PREFIX}/creditors`, headers, body: "" };
      case "company_profile":
        return { ...request, method: "GET", path: `${PREFIX}/company/profile`, headers, body: "" };
      case "create_debt":
        return {
          ...request,
          method: "POST",
          path: `${PREFIX}/debts`,
          headers,
          body: JSON.stringify({
            firstname: "Load",
            lastname: `Debtor ${n}`,
            email: `load${n}@example.com`,
            amount: 50 + (n % 500),
            currency: "EUR",
            internal_id: `LOAD-${input.tag}-${n}`,
          }),
        };
      case "create_followup":
        return {
          ...request,
          method: "POST",
          path: `${PREFIX}/followups`,
          headers,
          body: JSON.stringify({
            debt_id: pick(tenant.debtIds),
            type: "call",
            call_id: `LOAD-${input.tag}-${n}`,
            summary: "load test call",
          }),
        };
      case "submit_snapshot": {
        const rows = Array.from({ length: SNAPSHOT_ROWS }, (_, row) => ({
          internal_id: `SNAP-${row}`,
          remaining_amount: 100 + ((n + row) % 900),
          currency: "EUR",
          firstname: "Snapshot",
          lastname: `Debtor ${row}`,
        }));
        return {
          ...request,
          method: "PUT",
          path: `${PREFIX}/campaigns/${encodeURIComponent(tenant.campaign)}/snapshots/load-${input.tag}-${n}`,
          headers,
          body: JSON.stringify({ rows }),
        };
      }
    }
  };

  const record = (status: number, body: string, context: Context): void => {
    const operation = context.operation ?? "unknown";
    const byStatus = (statuses[operation] ??= {});
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    let parsed: { error?: unknown; code?: unknown; data?: Record<string, unknown> } | undefined;
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      parsed = undefined;
    }
    const isEnvelope =
      parsed !== undefined &&
      parsed !== null &&
      typeof parsed.error === "boolean" &&
      (parsed.error ? parsed.code === status : status < 400);
    if (!isEnvelope) nonEnvelope++;
    if (status >= 300 && status !== 429 && unexpected.length < 10)
      unexpected.push(`${operation} ${status}: ${body.slice(0, 300)}`);
    if (status < 200 || status >= 300 || parsed?.data === undefined) return;
    const data = parsed.data;
    if (operation === "create_debt")
      accepted.debts.push({ id: String(data["id"]), internalId: String(data["internal_id"]) });
    else if (operation === "create_followup")
      accepted.followups.push({ id: String(data["id"]), callId: String(data["call_id"]) });
    else if (operation === "submit_snapshot")
      accepted.snapshots.push({
        campaign: String(data["api_reference"]),
        reference: String(data["snapshot_reference"]),
      });
  };

  // One entry: each request draws its operation in setupRequest, and the
  // connection's context carries it to that request's onResponse.
  const entry: autocannon.Request = {
    setupRequest: (request, context) => build(request, context as Context),
    onResponse: (status, body, context) => record(status, body, context as Context),
  };
  const raw = await autocannon({
    url: input.baseUrl,
    connections: input.connections,
    duration: input.durationSeconds,
    ...(input.overallRate === undefined ? {} : { overallRate: input.overallRate }),
    requests: [entry],
    skipAggregateResult: true,
  });
  return { raw, statuses, nonEnvelope, unexpected, accepted };
};
