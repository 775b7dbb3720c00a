/**
 * Response compression (docs/decisions/0582). Bodies of 1 KiB or more of a
 * compressible type are sent with brotli or gzip when the request's
 * `Accept-Encoding` asks for one, by koa-compress, streaming through zlib off
 * the event loop; every response carries `Vary: Accept-Encoding`. Static
 * documents (the OpenAPI document) are compressed once, at the best level,
 * and the negotiated representation is sent as is: koa-compress leaves a
 * body that already has a `Content-Encoding`.
 */
import compress from "koa-compress";
import type { Context, Middleware } from "koa";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

/** Bodies smaller than this go uncompressed: the codings' framing would outweigh what they save. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/**
 * The middleware for dynamic bodies. Brotli at quality 4 compresses JSON
 * about as well as gzip's level 6 at a similar cost; higher qualities cost
 * many times more CPU per response. Deflate and zstd are not offered.
 */
export const compressResponses = (): Middleware =>
  compress({
    threshold: COMPRESSION_THRESHOLD_BYTES,
    br: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
    gzip: { level: 6 },
    deflate: false,
    zstd: false,
  }) as Middleware;

/** One static body in each coding the api sends, compressed once. */
export interface Precompressed {
  readonly identity: Buffer;
  readonly br: Buffer;
  readonly gzip: Buffer;
}

/** `body` compressed at the best levels: worth it for a body sent many times unchanged. */
export const precompress = async (body: Buffer): Promise<Precompressed> => ({
  identity: body,
  br: await promisify(brotliCompress)(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
  gzip: await promisify(gzip)(body, { level: 9 }),
});

/**
 * Sends the representation of `body` that the request accepts, as `type`,
 * with `Vary: Accept-Encoding`. Of codings accepted with the same weight, the
 * one the client lists first is sent.
 */
export const sendPrecompressed = (ctx: Context, body: Precompressed, type: string): void => {
  ctx.vary("Accept-Encoding");
  const coding = ctx.acceptsEncodings("br", "gzip", "identity");
  ctx.type = type;
  if (coding === "br" || coding === "gzip") {
    ctx.set("Content-Encoding", coding);
    ctx.body = body[coding];
  } else {
    ctx.body = body.identity;
  }
};
