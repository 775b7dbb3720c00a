import { formatIsoOffset } from "@dc/contract";
import { describe, expect, it } from "vitest";
import { mediaSigner } from "../src/media/signed-urls.ts";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";

const t = await startTestApi();
const { ids, config } = t.api.services;
const rows = collectionRows(t.db, ids);
const acme = await t.tenant("Acme Collections");
const globex = await t.tenant("Globex");
const acmeDebt = await rows.debt(acme);

const MEDIA = "/external-api/v1/media/{key}";
const ONE = "/external-api/v1/followups/{id}";
const RECORDING = "https://recordings.example/calls/123.mp3?token=provider-secret";
const DOCUMENT = "https://documents.example/letters/9.pdf";

/** Reads a followup now (links are signed at read time). */
const read = async (key: number) => {
  const response = await t.get(
    `/external-api/v1/followups/${ids.encode("followup", key)}`,
    await t.token(acme, "followups:read"),
  );
  expect(response.status).toBe(200);
  return (await expectContract(response, "get", ONE)).data;
};

const follow = (url: string) => fetch(url, { redirect: "manual" });
const withQuery = (url: string, changes: Record<string, string>) => {
  const parsed = new URL(url);
  for (const [name, value] of Object.entries(changes)) parsed.searchParams.set(name, value);
  return parsed.toString();
};

describe("pre-signed media links", () => {
  it("are returned for audio and pdf with their expiry, and redirect to the stored media", async () => {
    const key = await rows.followup(acme, acmeDebt, {
      type: "call",
      audio_object_key: RECORDING,
      pdf_object_key: DOCUMENT,
    });
    const data = await read(key);
    const expires = new Date(t.clock.now().getTime() + 3600_000);
    expect(data.media_urls_expire_at).toBe(formatIsoOffset(expires));
    expect(JSON.stringify(data)).not.toContain("recordings.example");
    expect(JSON.stringify(data)).not.toContain("provider-secret");
    for (const [url, target] of [
      [data.audio_url, RECORDING],
      [data.pdf_url, DOCUMENT],
    ] as const) {
      const response = await follow(url);
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toBe(target);
      expect(response.headers.get("referrer-policy")).toBe("no-referrer");
      expect(await expectContract(response, "get", MEDIA)).toEqual({
        error: false,
        message: "Redirecting to the media",
      });
    }
  });

  it("need no bearer token, work until just before one hour and are refused after", async () => {
    const key = await rows.followup(acme, acmeDebt, { type: "call", audio_object_key: RECORDING });
    const { audio_url } = await read(key);
    t.clock.advance(3599_999);
    expect((await follow(audio_url)).status).toBe(302);
    t.clock.advance(1);
    const expired = await follow(audio_url);
    expect(expired.status).toBe(410);
    expect(await expectContract(expired, "get", MEDIA)).toEqual({
      error: true,
      message: "Media link expired",
      code: 410,
    });
    const fresh = await read(key);
    expect(fresh.audio_url).not.toBe(audio_url);
    expect((await follow(fresh.audio_url)).status).toBe(302);
  });

  it("refuse a tampered signature, expiry or key with 403", async () => {
    const key = await rows.followup(acme, acmeDebt, {
      type: "call",
      audio_object_key: RECORDING,
      pdf_object_key: DOCUMENT,
    });
    const other = await rows.followup(acme, acmeDebt, {
      type: "call",
      audio_object_key: "https://recordings.example/other.mp3",
    });
    const { audio_url } = await read(key);
    const url = new URL(audio_url);
    const signature = url.searchParams.get("signature")!;
    const flipped = `${signature.slice(0, -2)}${signature.at(-2) === "A" ? "B" : "A"}${signature.at(-1)}`;
    const tampered = [
      withQuery(audio_url, { signature: flipped }),
      withQuery(audio_url, { signature: signature.slice(0, -1) }),
      withQuery(audio_url, { expires: String(Number(url.searchParams.get("expires")) + 86_400) }),
      audio_url.replace(".audio?", ".pdf?"),
      audio_url.replace(ids.encode("followup", key), ids.encode("followup", other)),
      audio_url.replace(acme.company_id, globex.company_id),
    ];
    for (const candidate of tampered) {
      const response = await follow(candidate);
      expect(response.status, candidate).toBe(403);
      expect(await expectContract(response, "get", MEDIA)).toEqual({
        error: true,
        message: "Invalid media signature",
        code: 403,
      });
    }
  });

  it("answer 400 naming a missing or malformed expires or signature", async () => {
    const key = await rows.followup(acme, acmeDebt, { type: "call", audio_object_key: RECORDING });
    const { audio_url } = await read(key);
    const bare = audio_url.split("?")[0]!;
    const missing = await follow(bare);
    expect(missing.status).toBe(400);
    expect(Object.keys((await expectContract(missing, "get", MEDIA)).details).sort()).toEqual(["expires", "signature"]);
    const malformed = await follow(withQuery(audio_url, { expires: "soon" }));
    expect(malformed.status).toBe(400);
    expect((await expectContract(malformed, "get", MEDIA)).details).toEqual({
      expires: "must be a positive integer (Unix seconds)",
    });
  });

  it("answer 404 when the followup or its media is gone, even with a valid signature", async () => {
    const key = await rows.followup(acme, acmeDebt, { type: "call", audio_object_key: RECORDING });
    const { audio_url } = await read(key);
    const signer = mediaSigner(config.idEncryptionKey, ids);
    const companyId = rows.companyOf(acme);
    const noPdf = signer.sign(t.api.url, { companyId, followupId: key, kind: "pdf" }, t.clock.now()).url;
    const notUrl = await rows.followup(acme, acmeDebt, { type: "call", audio_object_key: "javascript:alert(1)" });
    const unsafe = signer.sign(t.api.url, { companyId, followupId: notUrl, kind: "audio" }, t.clock.now()).url;
    await t.db.deleteFrom("followups").where("id", "=", key).execute();
    for (const url of [audio_url, noPdf, unsafe]) {
      const response = await follow(url);
      expect(response.status, url).toBe(404);
      expect(await expectContract(response, "get", MEDIA)).toEqual({
        error: true,
        message: "Media not found",
        code: 404,
      });
    }
  });

  it("serve a letter the platform stored itself as its PDF, to its own company, for one hour", async () => {
    const pdf = Buffer.from("%PDF-1.7\n% letter for test\n%%EOF\n");
    const objectKey = "letters/stored-test:1.pdf";
    const key = await rows.followup(acme, acmeDebt, { type: "postmail", pdf_object_key: objectKey });
    await t.db
      .insertInto("stored_objects")
      .values({
        company_id: rows.companyOf(acme),
        key: objectKey,
        followup_id: key,
        content_type: "application/pdf",
        body: pdf,
      })
      .execute();
    const data = await read(key);
    expect(data.pdf_url).toMatch(/\/external-api\/v1\/media\/[^/]+\.pdf\?expires=\d+&signature=/);
    expect(data.audio_url).toBeNull();
    expect(JSON.stringify(data)).not.toContain(objectKey);
    const response = await follow(data.pdf_url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/pdf");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(Buffer.from(await response.arrayBuffer()).equals(pdf)).toBe(true);

    // Another company's followup naming the same key finds nothing: objects are looked up within the company.
    const globexDebt = await rows.debt(globex);
    const foreign = await rows.followup(globex, globexDebt, { type: "postmail", pdf_object_key: objectKey });
    const signer = mediaSigner(config.idEncryptionKey, ids);
    const foreignUrl = signer.sign(
      t.api.url,
      { companyId: rows.companyOf(globex), followupId: foreign, kind: "pdf" },
      t.clock.now(),
    ).url;
    expect((await follow(foreignUrl)).status).toBe(404);

    t.clock.advance(3599_999);
    expect((await follow(data.pdf_url)).status).toBe(200);
    t.clock.advance(1);
    const expired = await follow(data.pdf_url);
    expect(expired.status).toBe(410);
    expect(await expectContract(expired, "get", MEDIA)).toEqual({
      error: true,
      message: "Media link expired",
      code: 410,
    });
  });

  it("are absent, with no expiry, when the followup has no media", async () => {
    const data = await read(await rows.followup(acme, acmeDebt));
    expect(data.audio_url).toBeNull();
    expect(data.pdf_url).toBeNull();
    expect(data).not.toHaveProperty("media_urls_expire_at");
  });
});
