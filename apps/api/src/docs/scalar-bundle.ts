/**
 * The Scalar API reference renderer, served from the installed
 * `@scalar/api-reference` package (its self-contained browser build), never
 * from a CDN. Read and gzipped once, on first use; browsers revalidate it by
 * an ETag of its content.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { gzip } from "node:zlib";

export interface StaticAsset {
  readonly body: Buffer;
  readonly gzipped: Buffer;
  readonly etag: string;
}

const require = createRequire(import.meta.url);

/** `dist/browser/standalone.js` of the installed package (its `exports` do not list it, so it is found from the main entry). */
const bundlePath = (): string => join(dirname(require.resolve("@scalar/api-reference")), "browser", "standalone.js");

let loading: Promise<StaticAsset> | undefined;

export const scalarBundle = (): Promise<StaticAsset> =>
  (loading ??= (async () => {
    const body = await readFile(bundlePath());
    return { body, gzipped: await promisify(gzip)(body, { level: 9 }), etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` };
  })().catch((error: unknown) => {
    loading = undefined;
    throw error;
  }));
