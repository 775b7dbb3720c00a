/**
 * A fake Lob on 127.0.0.1 for tests of the letter channel, speaking Lob's
 * documented Print & Mail API: `POST /v1/letters` (HTTP Basic auth with the
 * API key as user name, a multipart form with `to[...]`, `from`, `file`,
 * `color`, `use_type`, `metadata[...]`; `Idempotency-Key` answers the first
 * letter again), `GET /v1/letters/{id}` and `GET /v1/letters` filtered by
 * `metadata[...]`, with Lob's error bodies (`{error: {message, status_code,
 * code}}`). A test scripts the next creates (an outage with a status and
 * `Retry-After`, or a lost answer after Lob acted), fails the next lookups,
 * and builds Lob's webhook events for a letter, signed as Lob signs them:
 * hex HMAC-SHA256 of `<timestamp>.<raw body>` in `Lob-Signature`, the Unix
 * milliseconds in `Lob-Signature-Timestamp`.
 */
import { createHmac, randomBytes } from "node:crypto";
import { type ProviderReply, type ProviderRequestSeen, startProviderServer } from "./provider-server.ts";

export interface ReceivedLetter {
  readonly authorization: string | undefined;
  readonly idempotencyKey: string | undefined;
  readonly contentType: string | undefined;
  /** The form's text fields, by name (`to[address_line1]`, `metadata[dc_followup]`...). */
  readonly fields: Readonly<Record<string, string>>;
  readonly file: { readonly name: string; readonly type: string; readonly bytes: Uint8Array } | undefined;
}

export interface LobLetter {
  readonly id: string;
  readonly object: "letter";
  readonly description: string | null;
  readonly metadata: Readonly<Record<string, string>>;
  readonly to: Readonly<Record<string, string>>;
  readonly from: string;
  readonly color: boolean;
  readonly use_type: string;
  readonly url: string;
  readonly expected_delivery_date: string;
  readonly date_created: string;
  readonly deleted: boolean;
}

export interface SignedWebhook {
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

export interface FakeLob {
  readonly url: string;
  /** Every create request that reached the server (outages included), in order. */
  readonly requests: ReadonlyArray<ReceivedLetter>;
  /** The query of every letter lookup (`GET /v1/letters`) that reached the server (outages included), in order. */
  readonly lookups: ReadonlyArray<URLSearchParams>;
  /** Letters created, by id. */
  readonly letters: ReadonlyMap<string, LobLetter>;
  /**
   * The next `count` creates answer `status` (with `Retry-After` when given) and create nothing.
   * Outages and lost answers (`loseNextAnswers`) are played in the order queued, one per create.
   */
  readonly fail: (count: number, status: number, retryAfterSeconds?: number) => void;
  /** The next `count` lookups (`GET /v1/letters`) answer `status` and list nothing. */
  readonly failLookups: (count: number, status: number) => void;
  /** The next `count` creates act (make their letter, or find the key's), then close the connection unanswered (the answer is lost). */
  readonly loseNextAnswers: (count: number) => void;
  /**
   * A Lob event for a letter (`letter.delivered`, `letter.returned_to_sender`...),
   * signed with `secret` at `at` (default now); `id` fixes the event's id (a redelivery).
   */
  readonly event: (
    letter: LobLetter,
    type: string,
    secret: string,
    options?: { at?: Date; id?: string },
  ) => SignedWebhook;
  readonly close: () => Promise<void>;
}

/** Fields a letter cannot be created without (Lob answers 422 naming the first missing one). */
const required = ["to[address_line1]", "to[address_city]", "to[address_country]", "from", "color", "use_type"];

const lobError = (status: number, message: string, code: string): ProviderReply => ({
  status,
  body: { error: { message, status_code: status, code } },
});

export const startFakeLob = async (options: { readonly apiKey: string }): Promise<FakeLob> => {
  const requests: ReceivedLetter[] = [];
  const letters = new Map<string, LobLetter>();
  const byKey = new Map<string, LobLetter>();
  /** What the next creates do instead of answering: an outage, or acting and losing the answer. */
  const script: Array<{ status: number; retryAfter: number | undefined } | "lose"> = [];
  const lookups: URLSearchParams[] = [];
  const lookupOutages: number[] = [];
  const expected = `Basic ${Buffer.from(`${options.apiKey}:`).toString("base64")}`;

  const header = (request: ProviderRequestSeen, name: string): string | undefined => {
    const value = request.headers[name];
    return typeof value === "string" ? value : undefined;
  };

  const create = async (request: ProviderRequestSeen, baseUrl: string): Promise<ProviderReply> => {
    const contentType = header(request, "content-type");
    const form = await new Request(`${baseUrl}/v1/letters`, {
      method: "POST",
      headers: { "content-type": contentType ?? "" },
      body: request.body,
    })
      .formData()
      .catch(() => undefined);
    const fields: Record<string, string> = {};
    let file: ReceivedLetter["file"];
    for (const [name, value] of form?.entries() ?? []) {
      if (typeof value === "string") fields[name] = value;
      else file = { name: value.name, type: value.type, bytes: new Uint8Array(await value.arrayBuffer()) };
    }
    const idempotencyKey = header(request, "idempotency-key");
    const authorization = header(request, "authorization");
    requests.push({ authorization, idempotencyKey, contentType, fields, file });
    if (authorization !== expected) return lobError(401, "Your API key is not valid.", "unauthorized");
    const next = script.shift();
    if (next !== undefined && next !== "lose") {
      return {
        ...lobError(next.status, "Service unavailable", "service_unavailable"),
        headers: next.retryAfter === undefined ? {} : { "retry-after": String(next.retryAfter) },
      };
    }
    const answer = (letter: LobLetter): ProviderReply =>
      next === "lose" ? { status: 200, drop: true } : { status: 200, body: letter };
    const earlier = idempotencyKey === undefined ? undefined : byKey.get(idempotencyKey);
    if (earlier !== undefined) return answer(earlier);
    if (form === undefined) return lobError(422, "Request body must be multipart/form-data", "invalid");
    const missing = required.find((name) => fields[name] === undefined || fields[name] === "");
    if (missing !== undefined) return lobError(422, `${missing} is required`, "invalid");
    if (file === undefined || !Buffer.from(file.bytes.subarray(0, 5)).equals(Buffer.from("%PDF-")))
      return lobError(422, "file must be a PDF", "invalid_file");
    const prefixed = (prefix: string) =>
      Object.fromEntries(
        Object.entries(fields)
          .filter(([name]) => name.startsWith(`${prefix}[`))
          .map(([name, value]) => [name.slice(prefix.length + 1, -1), value]),
      );
    const id = `ltr_${randomBytes(8).toString("hex")}`;
    const letter: LobLetter = {
      id,
      object: "letter",
      description: fields["description"] ?? null,
      metadata: prefixed("metadata"),
      to: prefixed("to"),
      from: fields["from"]!,
      color: fields["color"] === "true",
      use_type: fields["use_type"]!,
      url: `${baseUrl}/rendered/${id}.pdf`,
      expected_delivery_date: "2030-01-01",
      date_created: new Date().toISOString(),
      deleted: false,
    };
    letters.set(id, letter);
    if (idempotencyKey !== undefined) byKey.set(idempotencyKey, letter);
    return answer(letter);
  };

  let baseUrl = "";
  const server = await startProviderServer((request) => {
    const url = new URL(request.url, baseUrl);
    if (request.method === "POST" && url.pathname === "/v1/letters") return create(request, baseUrl);
    if (header(request, "authorization") !== expected)
      return lobError(401, "Your API key is not valid.", "unauthorized");
    if (request.method === "GET" && url.pathname === "/v1/letters") {
      lookups.push(url.searchParams);
      const outage = lookupOutages.shift();
      if (outage !== undefined) return lobError(outage, "Service unavailable", "service_unavailable");
      const filters = [...url.searchParams].filter(([name]) => name.startsWith("metadata["));
      const data = [...letters.values()].filter((letter) =>
        filters.every(([name, value]) => letter.metadata[name.slice("metadata[".length, -1)] === value),
      );
      return { status: 200, body: { object: "list", data, count: data.length } };
    }
    const single = /^\/v1\/letters\/(ltr_[0-9a-f]+)$/.exec(url.pathname);
    const letter = single === null ? undefined : letters.get(single[1]!);
    if (request.method === "GET" && letter !== undefined) return { status: 200, body: letter };
    return lobError(404, "Not found", "not_found");
  });
  baseUrl = server.baseUrl;
  const url = server.baseUrl;

  return {
    url,
    requests,
    lookups,
    letters,
    fail: (count, status, retryAfterSeconds) => {
      for (let index = 0; index < count; index++) script.push({ status, retryAfter: retryAfterSeconds });
    },
    failLookups: (count, status) => {
      for (let index = 0; index < count; index++) lookupOutages.push(status);
    },
    loseNextAnswers: (count) => {
      for (let index = 0; index < count; index++) script.push("lose");
    },
    event: (letter, type, secret, eventOptions = {}) => {
      const at = eventOptions.at ?? new Date();
      const body = JSON.stringify({
        id: eventOptions.id ?? `evt_${randomBytes(8).toString("hex")}`,
        body: letter,
        reference_id: letter.id,
        event_type: { id: type, enabled_for_test: true, resource: "letters", object: "event_type" },
        date_created: at.toISOString(),
        object: "event",
      });
      const timestamp = String(at.getTime());
      const signature = createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
      return {
        body,
        headers: {
          "content-type": "application/json",
          "lob-signature": signature,
          "lob-signature-timestamp": timestamp,
        },
      };
    },
    close: server.close,
  };
};
