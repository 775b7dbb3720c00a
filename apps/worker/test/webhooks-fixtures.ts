/**
 * Webhook test fixtures: a real HTTP receiver on 127.0.0.1 (node:http) whose
 * answers each test scripts, endpoints with sealed secrets, events recorded
 * in transactions the tests write, and the delivery jobs as graphile-worker
 * holds them. Signatures are checked with the `standardwebhooks` package, an
 * implementation independent of ours.
 */
import { createSocket } from "node:dgram";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Database, recordEvents, type WebhookEventInput, type WebhookEventType } from "@dc/db";
import { ipv6Value } from "@dc/ssrf";
import { generateWebhookSecret, makeWebhookSecretBox } from "@dc/crypto";
import { type Kysely, sql } from "kysely";
import { Webhook } from "standardwebhooks";

/** The master secret of these tests (the api's development default would do as well). */
export const TEST_MASTER_KEY = new TextEncoder().encode("webhook-tests-master-secret-of-at-least-32-bytes");
export const testSecretBox = makeWebhookSecretBox(TEST_MASTER_KEY);

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly receivedAt: number;
}

export type Answer = (request: IncomingMessage, response: ServerResponse) => void;

export const answer =
  (status: number, body = "", headers: Record<string, string> = {}): Answer =>
  (_request, response) => {
    response.writeHead(status, { "content-type": "text/plain", ...headers });
    response.end(body);
  };

/** Never answers: for timeouts. */
export const hang: Answer = () => {};

/**
 * A receiver: each request gets the next scripted answer (then 200 "ok").
 * `requests` lists what arrived, in order.
 */
export const startReceiver = async () => {
  const requests: ReceivedRequest[] = [];
  const script: Answer[] = [];
  let defaultAnswer: Answer = answer(200, "ok");
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      requests.push({
        method: request.method ?? "",
        path: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        receivedAt: Date.now(),
      });
      (script.shift() ?? defaultAnswer)(request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (path = "/hooks") => `http://127.0.0.1:${port}${path}`,
    requests,
    /** Scripts the next answers, in order. */
    next: (...answers: Answer[]) => void script.push(...answers),
    setDefault: (fallback: Answer) => {
      defaultAnswer = fallback;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Verifies a received request with `standardwebhooks` (throws WebhookVerificationError when no signature matches). */
export const verifyWith = (secret: string, request: ReceivedRequest): unknown =>
  new Webhook(secret).verify(request.body, {
    "webhook-id": String(request.headers["webhook-id"]),
    "webhook-timestamp": String(request.headers["webhook-timestamp"]),
    "webhook-signature": String(request.headers["webhook-signature"]),
  });

export const insertCompany = async (db: Kysely<Database>, name = "Acme"): Promise<number> =>
  (await db.insertInto("companies").values({ name }).returning("id").executeTakeFirstOrThrow()).id;

export interface SeededEndpoint {
  readonly id: number;
  readonly secret: string;
}

/** An endpoint of `companyId` with a fresh secret sealed by the test master key. */
export const insertEndpoint = async (
  db: Kysely<Database>,
  companyId: number,
  url: string,
  options: { readonly ordered?: boolean; readonly eventTypes?: ReadonlyArray<WebhookEventType> } = {},
): Promise<SeededEndpoint> => {
  const { key, secret } = generateWebhookSecret();
  const row = await db
    .insertInto("webhook_endpoints")
    .values({
      company_id: companyId,
      url,
      secret_ciphertext: testSecretBox.seal(companyId, key),
      ordered: options.ordered ?? false,
      event_types: [...(options.eventTypes ?? [])],
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return { id: row.id, secret };
};

/** Records events in a transaction of their own (standing in for the change that causes them). */
export const record = (db: Kysely<Database>, events: ReadonlyArray<WebhookEventInput>) =>
  db.transaction().execute((trx) => recordEvents(trx, events));

export interface DeliveryJob {
  readonly id: string;
  readonly key: string | null;
  readonly queue_name: string | null;
  readonly run_at: Date;
  readonly payload: { company_id: number; delivery_id: number };
  readonly attempts: number;
}

/** The waiting `deliver_webhook` jobs, oldest first. */
export const deliveryJobs = async (db: Kysely<Database>): Promise<DeliveryJob[]> =>
  (
    await sql<DeliveryJob>`
      select j.id::text, j.key, q.queue_name, j.run_at, j.payload, j.attempts
      from graphile_worker._private_jobs j
      join graphile_worker._private_tasks t on t.id = j.task_id
      left join graphile_worker._private_job_queues q on q.id = j.job_queue_id
      where t.identifier = 'deliver_webhook'
      order by j.id`.execute(db)
  ).rows;

export const deliveryOf = (db: Kysely<Database>, id: number) =>
  db.selectFrom("webhook_deliveries").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

export const attemptsOf = (db: Kysely<Database>, deliveryId: number) =>
  db.selectFrom("webhook_delivery_attempts").selectAll().where("delivery_id", "=", deliveryId).orderBy("id").execute();

/** A clock the test moves by hand. */
export const movableClock = (start: Date) => {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    advance: (milliseconds: number) => {
      now += milliseconds;
    },
  };
};

/**
 * A name server on 127.0.0.1 (UDP) for the resolver's tests: it answers A and
 * AAAA queries for the names in `records` (other types of a known name: no
 * data), NXDOMAIN for unknown names, and never answers the names in `silent`.
 */
export const startNameServer = async (
  records: Readonly<Record<string, { readonly a?: ReadonlyArray<string>; readonly aaaa?: ReadonlyArray<string> }>>,
  silent: ReadonlyArray<string> = [],
) => {
  const socket = createSocket("udp4");
  socket.on("message", (query, peer) => {
    const labels: string[] = [];
    let offset = 12;
    while (query[offset] !== 0) {
      const length = query[offset]!;
      labels.push(query.subarray(offset + 1, offset + 1 + length).toString("latin1"));
      offset += 1 + length;
    }
    const question = query.subarray(12, offset + 5);
    const name = labels.join(".").toLowerCase();
    const type = query.readUInt16BE(offset + 1);
    if (silent.includes(name)) return;
    const record = records[name];
    const rdata =
      type === 1
        ? (record?.a ?? []).map((address) => Buffer.from(address.split(".").map(Number)))
        : type === 28
          ? (record?.aaaa ?? []).map((address) => {
              const value = ipv6Value(address)!;
              return Buffer.from(Array.from({ length: 16 }, (_, i) => Number((value >> BigInt(8 * (15 - i))) & 0xffn)));
            })
          : [];
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    header.writeUInt16BE(record === undefined ? 0x8183 : 0x8180, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(rdata.length, 6);
    const answers = rdata.map((data) => {
      const answer = Buffer.alloc(12);
      answer.writeUInt16BE(0xc00c, 0);
      answer.writeUInt16BE(type, 2);
      answer.writeUInt16BE(1, 4);
      answer.writeUInt32BE(60, 6);
      answer.writeUInt16BE(data.length, 10);
      return Buffer.concat([answer, data]);
    });
    socket.send(Buffer.concat([header, question, ...answers]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const { port } = socket.address();
  return { server: `127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => socket.close(() => resolve())) };
};
