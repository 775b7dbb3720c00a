/**
 * The retention purge (docs/decisions/0021) against a replay that holds
 * deliveries of the events it takes: it must neither wait for the replay
 * (0021: "it never waits on the api or a delivery") nor deadlock with a
 * replay that goes on to another delivery of the same batch; the event of a
 * held delivery stays for a later run.
 */
import { createDatabase, purgeWebhookEventsBatch } from "@dc/db";
import { holdTransaction, useTestDatabase } from "@dc/testing";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { insertCompany, insertEndpoint } from "./webhooks-fixtures.ts";

const { db, url } = await useTestDatabase();

const now = new Date("2030-06-15T12:00:00.000Z");
const daysAgo = (days: number): Date => new Date(now.getTime() - days * 24 * 60 * 60 * 1000);

const oldEventWithFailedDelivery = async (companyId: number, endpointId: number, n: number) => {
  const at = daysAgo(40 + n).toISOString();
  const { rows } = await sql<{ id: number }>`
    with e as (
      insert into webhook_events (company_id, public_id, type, payload, occurred_at, created_at)
      values (${companyId}, ${`evt_${String(n).padStart(32, "0")}`}, 'debt.updated', '{}', ${at}::timestamptz, ${at}::timestamptz)
      returning id, occurred_at
    )
    insert into webhook_deliveries (company_id, endpoint_id, event_id, event_occurred_at, status, attempt_count)
    select ${companyId}, ${endpointId}, id, occurred_at, 'failed', 1 from e returning id`.execute(db);
  return Number(rows[0]!.id);
};

describe("purgeWebhookEventsBatch against a replay in progress", () => {
  it("does not wait for a replay holding a delivery: it skips the delivery and keeps its event", async () => {
    const companyId = await insertCompany(db, "Replay waits");
    const endpoint = await insertEndpoint(db, companyId, "https://hooks.example.com/in");
    const delivery = await oldEventWithFailedDelivery(companyId, endpoint.id, 1);
    const replayer = createDatabase({ connectionString: url, max: 1 });
    try {
      // What replayFailedDeliveries does to the delivery, its transaction still open.
      const replay = await holdTransaction(replayer, (trx) =>
        sql`update webhook_deliveries set status = 'pending' where id = ${delivery}`.execute(trx),
      );
      // The batch must end while the replay still holds the delivery: waiting for it would never end (test timeout).
      const batch = await purgeWebhookEventsBatch(db, { cutoff: daysAgo(30), limit: 100 });
      await replay.release();
      expect(batch.deliveries).toBe(0);
      expect(batch.events).toBe(0);
      const left = await sql<{ status: string }>`select status from webhook_deliveries where id = ${delivery}`.execute(
        db,
      );
      expect(left.rows).toEqual([{ status: "pending" }]);
    } finally {
      await replayer.destroy();
      await sql`delete from webhook_events where company_id = ${companyId}`.execute(db);
    }
  });

  it("does not deadlock with a replay that locks the batch's deliveries in another order", async () => {
    const companyId = await insertCompany(db, "Replay deadlocks");
    const endpoint = await insertEndpoint(db, companyId, "https://hooks.example.com/in");
    const first = await oldEventWithFailedDelivery(companyId, endpoint.id, 2);
    const second = await oldEventWithFailedDelivery(companyId, endpoint.id, 3);
    const replayer = createDatabase({ connectionString: url, max: 1 });
    try {
      const replay = await holdTransaction(
        replayer,
        (trx) => sql`update webhook_deliveries set status = 'pending' where id = ${second}`.execute(trx),
        (trx) => sql`update webhook_deliveries set status = 'pending' where id = ${first}`.execute(trx),
      );
      // The batch skips the held delivery and ends, so the replay's next update meets no lock of the batch (waiting
      // for the held one instead never ends here, and deadlocked, 40P01, once the replay went on).
      const batch = await purgeWebhookEventsBatch(db, { cutoff: daysAgo(30), limit: 100 });
      await replay.release();
      expect(batch).toMatchObject({ events: 1, deliveries: 1 });
      const left = await sql<{ id: number; status: string }>`
        select id, status from webhook_deliveries where company_id = ${companyId} order by id`.execute(db);
      // The purge took the first delivery (the replay then found nothing to update) and left the held one.
      expect(left.rows.map((row) => ({ id: Number(row.id), status: row.status }))).toEqual([
        { id: second, status: "pending" },
      ]);
    } finally {
      await replayer.destroy();
      await sql`delete from webhook_events where company_id = ${companyId}`.execute(db);
    }
  });
});
