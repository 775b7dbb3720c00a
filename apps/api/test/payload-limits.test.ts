/**
 * The 413 of every operation taking a JSON body, found by walking `endpoints`
 * (a new operation is covered without touching this file): a body one byte
 * over the operation's `body.maxBytes` is refused with exactly the body the
 * OpenAPI document shows for its 413 (`Request body too large: the limit is
 * N bytes`, `error_code` `payload_too_large`), and nothing is written. The
 * document and the server take the message from `payloadTooLargeMessage` in
 * packages/contract.
 */
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { gzipSync } from "node:zlib";
import { endpoints } from "@dc/contract";
import { openApiDocument } from "@dc/contract/document";
import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { payloadTooLargeBody, rowCounts } from "./support/json-api.ts";
import { rowsFrom, snapshotTestKit } from "./support/snapshots.ts";

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

/**
 * The 10 MiB of the snapshot operations (contract part 8), at the byte: a
 * body of exactly 10 MiB is accepted, one byte more is the 413, with or
 * without `Content-Length` (chunked transfer coding); and an announced
 * length over the limit is refused before the body is read.
 */
describe("the 10 MiB body of snapshot submit and chunk upload", () => {
  const kit = snapshotTestKit(t);
  const MiB10 = 10 * 1024 * 1024;
  /** A snapshot body of `count` rows from `first`, padded with JSON whitespace to exactly `bytes`. */
  const padded = (first: number, count: number, bytes: number) => {
    const body = rowsFrom(first, count);
    return Buffer.from(body.slice(0, -1) + " ".repeat(bytes - Buffer.byteLength(body)) + "}");
  };

  /** Sends `body` with the chunked transfer coding, in two pieces, no Content-Length. */
  const sendChunked = (path: string, token: string, body: Buffer) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL(`${t.api.url}${path}`);
      const request = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path,
          method: "PUT",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            "transfer-encoding": "chunked",
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () =>
            resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
          );
        },
      );
      request.on("error", reject);
      request.write(body.subarray(0, body.length >> 1));
      request.end(body.subarray(body.length >> 1));
    });

  it("accepts a one-request submit of exactly 10 MiB, with Content-Length or chunked, and refuses one byte more", async () => {
    const { token, campaign, companyId } = await kit.setup();
    const exact = padded(0, 2, MiB10);
    expect(exact.length).toBe(MiB10);
    const withLength = await kit.send("PUT", kit.path(campaign.api_reference, "exact-length"), token, exact.toString());
    expect(withLength.status).toBe(202);
    expect((await sendChunked(kit.path(campaign.api_reference, "exact-chunked"), token, exact)).status).toBe(202);

    const over = padded(0, 2, MiB10 + 1);
    const refusedChunked = await sendChunked(kit.path(campaign.api_reference, "over-chunked"), token, over);
    expect(refusedChunked.status).toBe(413);
    expect(JSON.parse(refusedChunked.body)).toEqual(payloadTooLargeBody(MiB10));
    const refused = await kit.send("PUT", kit.path(campaign.api_reference, "over-length"), token, over.toString());
    expect(refused.status).toBe(413);
    expect(await kit.stored(companyId, campaign.id)).toMatchObject({ snapshots: 2, chunks: 2 });
  });

  it("accepts a chunk of exactly 10 MiB, chunked or not, and refuses one byte more without storing it", async () => {
    const s = await kit.started(4);
    expect((await s.chunk(0, padded(0, 1, MiB10).toString())).status).toBe(201);
    const chunkPath = kit.path(s.campaign.api_reference, s.reference, "/chunks/1");
    const refused = await sendChunked(chunkPath, s.token, padded(1, 1, MiB10 + 1));
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.body)).toEqual(payloadTooLargeBody(MiB10));
    expect(await kit.stored(s.companyId, s.campaign.id)).toEqual({ snapshots: 1, chunks: 1, jobs: 0 });
    expect((await sendChunked(chunkPath, s.token, padded(1, 1, MiB10))).status).toBe(201);
  });

  it("refuses a Content-Length over the limit at once, before a byte of the body arrives", async () => {
    const { token, campaign, companyId } = await kit.setup();
    const { port } = new URL(t.api.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () =>
        // The head only: were the api waiting for the announced body, no answer would come.
        socket.write(
          `PUT ${kit.path(campaign.api_reference, "announced")} HTTP/1.1\r\nHost: localhost\r\n` +
            `Authorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${MiB10 + 1}\r\n\r\n`,
        ),
      );
      let received = "";
      socket.on("data", (chunk: Buffer) => {
        received += chunk.toString("utf8");
        if (received.includes("\r\n\r\n") && received.endsWith("}")) {
          socket.destroy();
          resolve(received);
        }
      });
      socket.on("error", reject);
    });
    expect(answer.startsWith("HTTP/1.1 413 ")).toBe(true);
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toEqual(payloadTooLargeBody(MiB10));
    expect(await kit.stored(companyId, campaign.id)).toEqual({ snapshots: 0, chunks: 0, jobs: 0 });
  });
});
