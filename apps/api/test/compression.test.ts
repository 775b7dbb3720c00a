/**
 * Response compression (docs/decisions/0582): bodies of 1 KiB or more in
 * brotli or gzip as `Accept-Encoding` asks, `Vary: Accept-Encoding` on every
 * response, the OpenAPI document precompressed. Requests go over node:http,
 * which neither asks for a coding nor decodes one, so each header is the
 * test's own.
 */
import { request as httpRequest } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { collectionRows } from "./support/collection-rows.ts";
import { startTestApi } from "./support/harness.ts";

const t = await startTestApi();
const rows = collectionRows(t.db, t.api.services.ids);
const acme = await t.tenant("Acme Collections");
const token = await t.token(acme);
for (let i = 0; i < 10; i++) await rows.debt(acme);

interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

const get = (path: string, headers: Record<string, string>): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const request = httpRequest(`${t.api.url}${path}`, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end();
  });

const decoded = (response: RawResponse): string => {
  const coding = response.headers["content-encoding"];
  if (coding === "br") return brotliDecompressSync(response.body).toString("utf8");
  if (coding === "gzip") return gunzipSync(response.body).toString("utf8");
  expect(coding).toBeUndefined();
  return response.body.toString("utf8");
};

const LIST = "/external-api/v1/debts?limit=10";
const DOCUMENT = "/external-api/v1/openapi.json";
const auth = { authorization: `Bearer ${token}` };

describe("JSON responses of 1 KiB or more", () => {
  it("are sent in the coding asked for, the same JSON as uncompressed, with Vary: Accept-Encoding", async () => {
    const plain = await get(LIST, auth);
    expect(plain.status).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers["vary"]).toBe("Accept-Encoding");
    expect(plain.body.length).toBeGreaterThan(1024);
    const json = JSON.parse(plain.body.toString("utf8")) as { data: unknown[] };
    expect(json.data).toHaveLength(10);

    for (const [accept, coding] of [
      ["gzip, deflate, br", "br"],
      ["gzip", "gzip"],
      ["br;q=0.5, gzip", "gzip"],
      ["deflate", undefined],
      ["zstd", undefined],
      ["identity", undefined],
      ["br;q=0, gzip;q=0", undefined],
    ] as const) {
      const response = await get(LIST, { ...auth, "accept-encoding": accept });
      expect(response.status, accept).toBe(200);
      expect(response.headers["content-encoding"], accept).toBe(coding);
      expect(response.headers["vary"], accept).toBe("Accept-Encoding");
      expect(JSON.parse(decoded(response)), accept).toEqual(json);
      if (coding !== undefined) expect(response.body.length, accept).toBeLessThan(plain.body.length / 3);
    }
  });

  it("leaves a smaller body uncompressed, error bodies included, and still varies on Accept-Encoding", async () => {
    const unauthenticated = await get(LIST, { "accept-encoding": "gzip, br" });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers["content-encoding"]).toBeUndefined();
    expect(unauthenticated.headers["vary"]).toBe("Accept-Encoding");
    expect(JSON.parse(unauthenticated.body.toString("utf8"))).toEqual({
      error: true,
      message: "Authentication credentials are missing or invalid",
      code: 401,
    });
    const credits = await get("/external-api/v1/company/credits", { ...auth, "accept-encoding": "gzip, br" });
    expect(credits.status).toBe(200);
    expect(credits.body.length).toBeLessThan(1024);
    expect(credits.headers["content-encoding"]).toBeUndefined();
    expect(credits.headers["vary"]).toBe("Accept-Encoding");
  });
});

describe("GET /external-api/v1/openapi.json", () => {
  it("is sent precompressed in brotli or gzip, decoding to the same document", async () => {
    const plain = await get(DOCUMENT, {});
    expect(plain.status).toBe(200);
    expect(plain.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(plain.headers["vary"]).toBe("Accept-Encoding");
    const document = JSON.parse(plain.body.toString("utf8")) as { openapi: string };
    expect(document.openapi).toBe("3.1.0");
    const br = await get(DOCUMENT, { "accept-encoding": "br, gzip" });
    const gzip = await get(DOCUMENT, { "accept-encoding": "gzip, deflate, br" });
    const identity = await get(DOCUMENT, { "accept-encoding": "br;q=0, gzip;q=0" });
    // Of two codings accepted alike, the client's first is sent.
    expect([br, gzip, identity].map((response) => response.headers["content-encoding"])).toEqual([
      "br",
      "gzip",
      undefined,
    ]);
    expect(identity.body.equals(plain.body)).toBe(true);
    expect(JSON.parse(decoded(br))).toEqual(document);
    expect(JSON.parse(decoded(gzip))).toEqual(document);
    // The document is repetitive: each coding sends under a tenth of it.
    expect(br.body.length).toBeLessThan(plain.body.length / 10);
    expect(gzip.body.length).toBeLessThan(plain.body.length / 10);
    expect(Number(br.headers["content-length"])).toBe(br.body.length);
  });
});
