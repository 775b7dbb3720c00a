/**
 * `snapshot.completed` / `snapshot.failed` on their own: reads the snapshot's
 * acknowledgement and records the event, in the transaction that moved the
 * snapshot (finalize's invalid rows, the worker's failures). Nothing is read
 * when no endpoint of the company subscribes to the type.
 */
import type { Kysely } from "kysely";
import type { Database } from "../../schema.ts";
import { snapshotEventData } from "./event-data/snapshot-data.ts";
import { recordEvent, type RecordedEvents } from "./record-event.ts";
import { subscribedWebhookEventTypes } from "./subscriptions.ts";

export interface SnapshotEvent {
  readonly companyId: number;
  readonly snapshotId: number;
  readonly type: "snapshot.completed" | "snapshot.failed";
  /** The clock value the snapshot's move used. */
  readonly occurredAt: Date;
}

/** Records the event of a snapshot's move; call after the move, in its transaction. */
export const recordSnapshotEvent = async (trx: Kysely<Database>, event: SnapshotEvent): Promise<RecordedEvents> => {
  if (!(await subscribedWebhookEventTypes(trx, event.companyId)).has(event.type)) return { events: 0, deliveries: 0 };
  const data = await snapshotEventData(trx, event.companyId, event.snapshotId);
  if (data === undefined) throw new Error(`snapshot ${event.snapshotId} of company ${event.companyId} not found`);
  return recordEvent(trx, { companyId: event.companyId, type: event.type, data, occurredAt: event.occurredAt });
};
