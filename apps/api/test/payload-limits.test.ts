/**
 * The 413 of every operation taking a JSON body, found by walking `endpoints`
 * (a new operation is covered without touching this file): a body one byte
 * over the operation's `body.maxBytes` is refused with exactly the body the
 * OpenAPI document shows for its 413 (`Request body too large: the limit is
 * N bytes`, `error_code` `payload_too_large`), and nothing is written. The
 * document once showed a message without the limit on twelve operations
 * while the server sent it with the limit; both now come from
 * `payloadTooLargeMessage` in packages/contract.
 */
import { gzipSync } from "node:zlib";
import { endpoints } from "@dc/contract";
import { openApiDocument } from "@dc/contract/document";
import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { rowCounts } from "./support/json-api.ts";

const t = await startTestApi();
const acme = await t.tenant("Acme Collections");
const token = await t.token(acme);

const document = openApiDocument() as {
  paths: Record<
    string,
    Record<
      string,
      { responses: Record<string, { content?: Record<string, { examples?: Record<string, { value: unknown }> }> }> }
    >
  >;
};

const jsonOperations = Object.values(endpoints).flatMap((declared) =>
  declared.scope !== null && declared.body?.contentType === "application/json"
    ? [
        {
          operationId: declared.operationId,
          method: declared.method,
          path: declared.path,
          maxBytes: declared.body.maxBytes,
        },
      ]
    : [],
);

/** The path with each parameter filled: chunk indexes must be integers, any string passes as an id or a reference. */
const fill = (path: string) => path.replace("{chunkIndex}", "0").replace(/\{[^}]+\}/g, "limits-sweep");

/** A JSON object of exactly `bytes + 1` bytes. */
const overBy1 = (bytes: number) => {
  const head = '{"pad":"';
  return `${head}${"x".repeat(bytes + 1 - head.length - 2)}"}`;
};

describe("413 on every JSON-body operation", () => {
  it("covers the contract's JSON-body operations", () => {
    expect(jsonOperations.map((operation) => operation.operationId)).toEqual(
      expect.arrayContaining(["createDebt", "createFollowup", "submitSnapshot", "createWebhookEndpoint"]),
    );
  });

  describe.each(jsonOperations)("$method $path ($maxBytes bytes)", (operation) => {
    it("answers a body one byte over the limit with exactly the document's 413, writing nothing", async () => {
      const documented = Object.values(
        document.paths[operation.path]![operation.method]!.responses["413"]!.content!["application/json"]!.examples!,
      ).map((example) => example.value);
      expect(documented).toHaveLength(1);
      const before = await rowCounts(t.db);
      const body = overBy1(operation.maxBytes);
      expect(Buffer.byteLength(body)).toBe(operation.maxBytes + 1);
      const response = await t.request(fill(operation.path), {
        method: operation.method.toUpperCase(),
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body,
      });
      expect(response.status).toBe(413);
      expect(await expectContract(response, operation.method, operation.path)).toEqual(documented[0]);
      expect(await rowCounts(t.db)).toEqual(before);
    });
  });
});

/**
 * Compressed bodies (docs/decisions/0019): the api reads only the `identity`
 * coding, so a compressed body is refused before a byte of it is read, and
 * a zip bomb is never inflated. RFC 9110 12.5.3: the 415 names the codings
 * accepted (`Accept-Encoding`), so that a client can tell a coding it should
 * drop from a media type it got wrong.
 */
describe("415 for a compressed body on every JSON-body operation", () => {
  // 64 MiB of zeros, about 64 KiB gzipped: inflated, it would be six times the largest body limit.
  const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));

  describe.each(jsonOperations)("$method $path", (operation) => {
    it("answers exactly the document's 415 for the coding, with Accept-Encoding: identity, writing nothing", async () => {
      const documented = Object.values(
        document.paths[operation.path]![operation.method]!.responses["415"]!.content!["application/json"]!.examples!,
      )
        .map((example) => example.value)
        .filter((value) => (value as { error_code?: string }).error_code === "unsupported_content_encoding");
      expect(documented).toHaveLength(1);
      const before = await rowCounts(t.db);
      const response = await t.request(fill(operation.path), {
        method: operation.method.toUpperCase(),
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-encoding": "gzip" },
        body: bomb,
      });
      expect(response.status).toBe(415);
      expect(response.headers.get("accept-encoding")).toBe("identity");
      expect(await expectContract(response, operation.method, operation.path)).toEqual(documented[0]);
      expect(await rowCounts(t.db)).toEqual(before);
    });
  });
});
