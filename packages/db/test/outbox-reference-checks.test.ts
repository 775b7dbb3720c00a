/**
 * The webhook outbox's references within the row's company: an event's and
 * a delivery's company and a delivery's endpoint and event are foreign keys
 * (migration 0023, decision 0367); an attempt's delivery is checked per
 * statement by triggers (migration 0016, decision 0021), with the delete
 * a foreign key would cascade.
 */
import { type Kysely, sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createDatabase } from "../src/connection.ts";
import type { Database } from "../src/schema.ts";
import { holdTransaction, useTestDatabase } from "../../testing/index.ts";
import { returnedId, sqlState, stateOfRemovalDuringWrite } from "./support/reference-checks.ts";

const { url } = await useTestDatabase();
const db = createDatabase({ connectionString: url, max: 4 });
afterAll(() => db.destroy());

const one = (query: ReturnType<typeof sql<{ id: number }>>) => returnedId(db, query);

const insertEvent = (on: Kysely<Database>, companyId: number) =>
  returnedId(
    on,
    sql`insert into webhook_events (company_id, public_id, type, payload, occurred_at)
      values (${companyId}, ${`evt_${Math.random().toString(36).slice(2)}`}, 'debt.updated', '{}', now()) returning id`,
  );

const insertDelivery = (on: Kysely<Database>, companyId: number, endpointId: number, eventId: number) =>
  returnedId(
    on,
    sql`insert into webhook_deliveries (company_id, endpoint_id, event_id, event_occurred_at)
      values (${companyId}, ${endpointId}, ${eventId}, now()) returning id`,
  );

/** A company with an endpoint, an event, its delivery and one attempt of it. */
const tenant = async () => {
  const companyId = await one(sql`insert into companies (name) values ('Outbox') returning id`);
  const endpointId = await one(sql`
    insert into webhook_endpoints (company_id, url, event_types, secret_ciphertext)
    values (${companyId}, 'https://hooks.example.com/x', '{}', '\\x00') returning id`);
  const eventId = await insertEvent(db, companyId);
  const deliveryId = await insertDelivery(db, companyId, endpointId, eventId);
  await sql`insert into webhook_delivery_attempts (company_id, delivery_id, attempted_at, duration_ms)
    values (${companyId}, ${deliveryId}, now(), 5)`.execute(db);
  return { companyId, endpointId, eventId, deliveryId };
};

const count = async (table: "webhook_events" | "webhook_deliveries" | "webhook_delivery_attempts", companyId: number) =>
  (
    await sql<{
      n: number;
    }>`select count(*)::int4 as n from ${sql.table(table)} where company_id = ${companyId}`.execute(db)
  ).rows[0]?.n;

describe("webhook outbox references", () => {
  it("refuse a delivery naming another company's endpoint or event, or none, writing nothing", async () => {
    const t = await tenant();
    const other = await tenant();
    const eventId = await insertEvent(db, t.companyId);
    expect(await sqlState(insertDelivery(db, t.companyId, other.endpointId, eventId))).toBe("23503");
    expect(await sqlState(insertDelivery(db, t.companyId, t.endpointId, other.eventId))).toBe("23503");
    expect(await sqlState(insertDelivery(db, t.companyId, t.endpointId, eventId + 1_000_000))).toBe("23503");
    expect(await sqlState(insertDelivery(db, t.companyId, t.endpointId + 1_000_000, eventId))).toBe("23503");
    expect(await count("webhook_deliveries", t.companyId)).toBe(1);
    await insertDelivery(db, t.companyId, t.endpointId, eventId);
    expect(await count("webhook_deliveries", t.companyId)).toBe(2);
  });

  it("refuse an event or a delivery of a company that does not exist", async () => {
    const t = await tenant();
    expect(await sqlState(insertEvent(db, t.companyId + 1_000_000))).toBe("23503");
    expect(
      await sqlState(
        sql`update webhook_deliveries set company_id = ${t.companyId + 1_000_000} where id = ${t.deliveryId}`.execute(
          db,
        ),
      ),
    ).toBe("23503");
  });

  it("check an update only when it changes a reference", async () => {
    const t = await tenant();
    const other = await tenant();
    expect(
      await sqlState(
        sql`update webhook_deliveries set endpoint_id = ${other.endpointId} where id = ${t.deliveryId}`.execute(db),
      ),
    ).toBe("23503");
    await sql`update webhook_deliveries set status = 'succeeded', attempt_count = 1 where id = ${t.deliveryId}`.execute(
      db,
    );
    expect(await count("webhook_deliveries", t.companyId)).toBe(1);
  });

  it("delete an endpoint's deliveries, with their attempts, with the endpoint, and nothing else", async () => {
    const deleted = await tenant();
    const kept = await tenant();
    await sql`delete from webhook_endpoints where id = ${deleted.endpointId}`.execute(db);
    expect(await count("webhook_deliveries", deleted.companyId)).toBe(0);
    expect(await count("webhook_delivery_attempts", deleted.companyId)).toBe(0);
    expect(await count("webhook_events", deleted.companyId)).toBe(1);
    expect(await count("webhook_deliveries", kept.companyId)).toBe(1);
  });

  it("refuse an attempt naming another company's delivery, or none, writing nothing", async () => {
    const t = await tenant();
    const other = await tenant();
    const attempt = (companyId: number, deliveryId: number) =>
      sql`insert into webhook_delivery_attempts (company_id, delivery_id, attempted_at, duration_ms)
        values (${companyId}, ${deliveryId}, now(), 5)`.execute(db);
    expect(await sqlState(attempt(t.companyId, other.deliveryId))).toBe("23503");
    expect(await sqlState(attempt(t.companyId, t.deliveryId + 1_000_000))).toBe("23503");
    expect(
      await sqlState(
        sql`update webhook_delivery_attempts set delivery_id = ${other.deliveryId} where company_id = ${t.companyId}`.execute(
          db,
        ),
      ),
    ).toBe("23503");
    expect(await count("webhook_delivery_attempts", t.companyId)).toBe(1);
    await attempt(t.companyId, t.deliveryId);
    expect(await count("webhook_delivery_attempts", t.companyId)).toBe(2);
  });

  it("delete a delivery's attempts with the delivery, and no other delivery's", async () => {
    const t = await tenant();
    const kept = await insertDelivery(db, t.companyId, t.endpointId, await insertEvent(db, t.companyId));
    await sql`insert into webhook_delivery_attempts (company_id, delivery_id, attempted_at, duration_ms)
      values (${t.companyId}, ${kept}, now(), 5)`.execute(db);
    await sql`delete from webhook_deliveries where id = ${t.deliveryId}`.execute(db);
    const left = await sql<{ delivery_id: number }>`
      select delivery_id from webhook_delivery_attempts where company_id = ${t.companyId}`.execute(db);
    expect(left.rows.map((row) => Number(row.delivery_id))).toEqual([kept]);
  });

  it("delete an event's deliveries with the event", async () => {
    const t = await tenant();
    await sql`delete from webhook_events where id = ${t.eventId}`.execute(db);
    expect(await count("webhook_deliveries", t.companyId)).toBe(0);
    expect(await count("webhook_delivery_attempts", t.companyId)).toBe(0);
  });

  it("delete a company's events, deliveries and attempts with the company", async () => {
    const deleted = await tenant();
    const kept = await tenant();
    await sql`delete from companies where id = ${deleted.companyId}`.execute(db);
    for (const table of ["webhook_events", "webhook_deliveries", "webhook_delivery_attempts"] as const) {
      expect(await count(table, deleted.companyId)).toBe(0);
      expect(await count(table, kept.companyId)).toBe(1);
    }
  });

  it("refuse to change the id of an endpoint, an event or a delivery", async () => {
    const t = await tenant();
    expect(await sqlState(sql`update webhook_deliveries set id = default where id = ${t.deliveryId}`.execute(db))).toBe(
      "23503",
    );
    expect(await sqlState(sql`update webhook_endpoints set id = default where id = ${t.endpointId}`.execute(db))).toBe(
      "23503",
    );
    expect(await sqlState(sql`update webhook_events set id = default where id = ${t.eventId}`.execute(db))).toBe(
      "23503",
    );
  });

  it("keep a delivery from being deleted while a transaction that wrote an attempt for it is open", async () => {
    const t = await tenant();
    const state = await stateOfRemovalDuringWrite(
      url,
      (trx) => sql`insert into webhook_delivery_attempts (company_id, delivery_id, attempted_at, duration_ms)
        values (${t.companyId}, ${t.deliveryId}, now(), 5)`.execute(trx),
      (trx) => sql`delete from webhook_deliveries where id = ${t.deliveryId}`.execute(trx),
    );
    expect(state).toBe("55P03");
    expect(await count("webhook_delivery_attempts", t.companyId)).toBe(2);
  });

  it("leave no attempt behind when its delivery is deleted as the attempt's writer commits", async () => {
    const t = await tenant();
    const writer = createDatabase({ connectionString: url, max: 1 });
    const remover = createDatabase({ connectionString: url, max: 1 });
    try {
      const write = await holdTransaction(
        writer,
        (trx) => sql`insert into webhook_delivery_attempts (company_id, delivery_id, attempted_at, duration_ms)
          values (${t.companyId}, ${t.deliveryId}, now(), 5)`.execute(trx),
      );
      const remove = sql`delete from webhook_deliveries where id = ${t.deliveryId}`.execute(remover);
      await new Promise((resolve) => setTimeout(resolve, 200)); // the delete reaches the writer's lock and waits
      await write.release();
      await remove;
      expect(await count("webhook_deliveries", t.companyId)).toBe(0);
      expect(await count("webhook_delivery_attempts", t.companyId)).toBe(0);
    } finally {
      await writer.destroy();
      await remover.destroy();
    }
  });

  it("keep an endpoint from being deleted while a transaction that wrote a delivery for it is open", async () => {
    const t = await tenant();
    const state = await stateOfRemovalDuringWrite(
      url,
      async (trx) => insertDelivery(trx, t.companyId, t.endpointId, await insertEvent(trx, t.companyId)),
      (trx) => sql`delete from webhook_endpoints where id = ${t.endpointId}`.execute(trx),
    );
    expect(state).toBe("55P03");
    expect(await count("webhook_deliveries", t.companyId)).toBe(2);
  });

  it("leave the attempts' check the only statement-level reference check, its plan pinned to primary-key probes", async () => {
    const { rows } = await sql<{ name: string; config: ReadonlyArray<string> | null }>`
      select distinct p.proname as name, p.proconfig as config
      from pg_trigger t join pg_proc p on p.oid = t.tgfoid
      where not t.tgisinternal and p.prosrc like '%foreign_key_violation%'
      order by name`.execute(db);
    expect(rows).toEqual([
      { name: "parent_key_is_fixed", config: null },
      { name: "webhook_delivery_attempts_delivery_id_check", config: ["enable_seqscan=off", "enable_nestloop=on"] },
      { name: "webhook_delivery_attempts_delivery_id_check_changed", config: null },
    ]);
  });
});
