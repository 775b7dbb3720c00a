/**
 * SSRF protection: with the production policy, destinations that resolve to
 * loopback, private, link-local, unique-local, multicast or unspecified
 * addresses (IPv4 and IPv6, IPv4-mapped included) are refused, at every
 * attempt (DNS rebinding); a vetted address is the one connected to.
 */
import { execFileSync } from "node:child_process";
import { closeSync, constants, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type DestinationPolicy,
  dnsResolver,
  forbiddenAddressReason,
  type HostResolver,
  privateDestinationResolver,
  resolverWithDeadline,
  vetDestination,
} from "@dc/ssrf";
import { useTestDatabase } from "@dc/testing";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { deliverWebhook } from "../src/webhooks/deliver.ts";
import { sendWebhook } from "../src/webhooks/send.ts";
import { attemptsOf, insertCompany, insertEndpoint, record, startNameServer, startReceiver, testSecretBox } from "./webhooks-fixtures.ts";

const production: DestinationPolicy = { allowPrivateDestinations: false };
const development: DestinationPolicy = { allowPrivateDestinations: true };
const resolvingTo =
  (...addresses: string[]): HostResolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));

describe("forbiddenAddressReason", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.5.4", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link-local"],
    ["100.64.0.1", "shared (carrier-grade NAT)"],
    ["0.0.0.0", "unspecified"],
    ["224.0.0.251", "multicast"],
    ["255.255.255.255", "reserved"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fc00::1", "unique-local"],
    ["fd12:3456:789a::1", "unique-local"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback (IPv4-mapped)"],
    ["::ffff:7f00:1", "loopback (IPv4-mapped)"],
    ["::ffff:10.0.0.1", "private (IPv4-mapped)"],
    ["64:ff9b::a9fe:a9fe", "link-local (NAT64)"],
    ["2002:7f00:1::1", "loopback (6to4)"],
    ["::127.0.0.1", "reserved (IPv4-compatible)"],
    ["::ffff:0:10.0.0.1", "reserved (IPv4-translated)"],
    ["::ffff:0:8.8.8.8", "reserved (IPv4-translated)"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "reserved (Teredo)"],
  ])("refuses %s (%s)", (address, reason) => {
    expect(forbiddenAddressReason(address)).toBe(reason);
  });

  it.each(["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"])("accepts %s", (address) => {
    expect(forbiddenAddressReason(address)).toBeUndefined();
  });
});

describe("vetDestination with the production policy", () => {
  it.each([
    ["https://127.0.0.1/hooks", "destination 127.0.0.1 is loopback"],
    ["https://10.20.30.40/hooks", "destination 10.20.30.40 is private"],
    ["https://169.254.169.254/latest/meta-data", "destination 169.254.169.254 is link-local"],
    ["https://[::1]:8443/hooks", "destination ::1 is loopback"],
    ["https://[fc00::1]/hooks", "destination fc00::1 is unique-local"],
    ["https://[::ffff:127.0.0.1]/hooks", "destination ::ffff:7f00:1 is loopback (IPv4-mapped)"],
    ["http://hooks.example.com/", "url must use https"],
    ["https://user:pass@hooks.example.com/", "url must not contain credentials"],
    ["ftp://hooks.example.com/", "url must be an absolute http or https URL"],
  ])("refuses %s", async (url, reason) => {
    expect(await vetDestination(url, production, resolvingTo("93.184.216.34"))).toEqual({ ok: false, reason });
  });

  it("refuses a host name that resolves to loopback (real DNS, a local name server), naming no address", async () => {
    const names = await startNameServer({ "loopback.example.test": { a: ["127.0.0.1"], aaaa: ["::1"] } });
    try {
      const vetted = await vetDestination("https://loopback.example.test:8443/hooks", production, dnsResolver({ servers: [names.server] }));
      expect(vetted).toMatchObject({ ok: false, reason: "host must resolve to public addresses only" });
      expect(!vetted.ok && vetted.detail).toBe("host loopback.example.test: destination 127.0.0.1 is loopback");
    } finally {
      await names.close();
    }
  });

  it("refuses a host when ANY of its addresses is private, naming the address only in the detail", async () => {
    expect(await vetDestination("https://mixed.example/hooks", production, resolvingTo("93.184.216.34", "10.0.0.7"))).toEqual({
      ok: false,
      reason: "host must resolve to public addresses only",
      detail: "host mixed.example: destination 10.0.0.7 is private",
    });
  });

  it("refuses a host that does not resolve with the same reason as a private one", async () => {
    const failing: HostResolver = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    expect(await vetDestination("https://nowhere.example/", production, failing)).toEqual({
      ok: false,
      reason: "host must resolve to public addresses only",
      detail: "host nowhere.example could not be resolved",
    });
  });

  it("accepts a public host and returns the addresses to connect to", async () => {
    const vetted = await vetDestination("https://hooks.example.com/x", production, resolvingTo("93.184.216.34", "2606:2800:220:1::1"));
    expect(vetted).toMatchObject({ ok: true, addresses: [{ address: "93.184.216.34", family: 4 }, { address: "2606:2800:220:1::1", family: 6 }] });
  });

  it("lets everything through with the development policy, unresolved", async () => {
    expect(await vetDestination("http://127.0.0.1:9/x", development)).toMatchObject({ ok: true, addresses: undefined });
  });
});

/**
 * Every thread of libuv's pool held (the pool `dns.lookup`, scrypt, zlib and
 * file access share): each opens a FIFO for reading, which blocks until a
 * writer comes. Returns what lets them go.
 */
const holdThreadPool = async () => {
  const size = Number(process.env["UV_THREADPOOL_SIZE"] ?? 4);
  const directory = mkdtempSync(join(tmpdir(), "held-pool-"));
  const fifos = Array.from({ length: size }, (_, i) => join(directory, `fifo-${i}`));
  for (const fifo of fifos) execFileSync("mkfifo", [fifo]);
  const opened = fifos.map((fifo) => open(fifo, "r"));
  await new Promise((resolve) => setTimeout(resolve, 100));
  return async () => {
    const writers = fifos.map((fifo) => openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    for (const handle of await Promise.all(opened)) await handle.close();
    for (const writer of writers) closeSync(writer);
    rmSync(directory, { recursive: true });
  };
};

describe("name resolution (real DNS through a local name server)", () => {
  it("answers while libuv's thread pool is held: one company's name server that never answers cannot hold the others' lookups", async () => {
    const names = await startNameServer({ "hooks.example.test": { a: ["93.184.216.34"] } }, ["hangs.example.test"]);
    const resolve = resolverWithDeadline(dnsResolver({ servers: [names.server] }), 2_000);
    const release = await holdThreadPool();
    try {
      const hanging = Array.from({ length: 8 }, () => vetDestination("https://hangs.example.test/hooks", production, resolve));
      expect(await vetDestination("https://hooks.example.test/hooks", production, resolve)).toMatchObject({
        ok: true,
        addresses: [{ address: "93.184.216.34", family: 4 }],
      });
      for (const vetted of await Promise.all(hanging)) {
        expect(vetted).toEqual({ ok: false, reason: "host must resolve to public addresses only", detail: "host hangs.example.test could not be resolved" });
      }
    } finally {
      await release();
      await names.close();
    }
  });

  it("vets every address of both families, and refuses a name without any", async () => {
    const names = await startNameServer({
      "dual.example.test": { a: ["93.184.216.34"], aaaa: ["2606:2800:220:1::1"] },
      "mapped.example.test": { a: ["93.184.216.34"], aaaa: ["::ffff:169.254.169.254"] },
      "empty.example.test": {},
    });
    const resolve = dnsResolver({ servers: [names.server] });
    try {
      expect(await vetDestination("https://dual.example.test/", production, resolve)).toMatchObject({
        ok: true,
        addresses: [
          { address: "93.184.216.34", family: 4 },
          { address: "2606:2800:220:1::1", family: 6 },
        ],
      });
      expect(await vetDestination("https://mapped.example.test/", production, resolve)).toEqual({
        ok: false,
        reason: "host must resolve to public addresses only",
        detail: "host mapped.example.test: destination ::ffff:169.254.169.254 is link-local (IPv4-mapped)",
      });
      for (const name of ["empty.example.test", "unknown.example.test"]) {
        expect(await vetDestination(`https://${name}/`, production, resolve)).toEqual({
          ok: false,
          reason: "host must resolve to public addresses only",
          detail: `host ${name} could not be resolved`,
        });
      }
    } finally {
      await names.close();
    }
  });
});

const { db } = await useTestDatabase();
const receiver = await startReceiver();
afterAll(() => receiver.close());

describe("a delivery under the production policy", () => {
  const deps = (resolve: HostResolver) => ({
    db,
    clock: { now: () => new Date() },
    logger: pino({ level: "silent" }),
    secrets: testSecretBox,
    policy: production,
    timeoutMs: 2_000,
    random: () => 0.5,
    resolve,
  });

  it("refuses a private destination at attempt time, without sending anything", async () => {
    const companyId = await insertCompany(db);
    await insertEndpoint(db, companyId, `https://127.0.0.1:${receiver.port}/hooks`);
    await record(db, [{ companyId, type: "debt.created", data: {}, occurredAt: new Date() }]);
    const delivery = await db.selectFrom("webhook_deliveries").select("id").where("company_id", "=", companyId).executeTakeFirstOrThrow();

    expect((await deliverWebhook(deps(resolvingTo("93.184.216.34")), { companyId, deliveryId: delivery.id })).outcome).toBe("retry_scheduled");

    expect(await attemptsOf(db, delivery.id)).toMatchObject([{ status_code: null, error: "refused: destination 127.0.0.1 is loopback", duration_ms: 0 }]);
    expect(receiver.requests).toEqual([]);
  });

  it("refuses a name whose server never answers once the delivery's deadline passes, without sending anything", async () => {
    const companyId = await insertCompany(db);
    await insertEndpoint(db, companyId, "https://silent-dns.example/hooks");
    await record(db, [{ companyId, type: "debt.created", data: {}, occurredAt: new Date() }]);
    const delivery = await db.selectFrom("webhook_deliveries").select("id").where("company_id", "=", companyId).executeTakeFirstOrThrow();
    const neverAnswers: HostResolver = () => new Promise(() => {});

    const result = await deliverWebhook({ ...deps(neverAnswers), timeoutMs: 300 }, { companyId, deliveryId: delivery.id });
    expect(result.outcome).toBe("retry_scheduled");
    expect(await attemptsOf(db, delivery.id)).toMatchObject([{ status_code: null, error: "refused: host must resolve to public addresses only" }]);
    expect(receiver.requests).toEqual([]);
  });

  it("vets again at delivery time: a name that now resolves to a private address is refused (DNS rebinding)", async () => {
    const companyId = await insertCompany(db);
    await insertEndpoint(db, companyId, "https://rebinding.example/hooks");
    await record(db, [{ companyId, type: "debt.created", data: {}, occurredAt: new Date() }]);
    const delivery = await db.selectFrom("webhook_deliveries").select("id").where("company_id", "=", companyId).executeTakeFirstOrThrow();

    await deliverWebhook(deps(resolvingTo("169.254.169.254")), { companyId, deliveryId: delivery.id });

    expect(await attemptsOf(db, delivery.id)).toMatchObject([{ error: "refused: host must resolve to public addresses only" }]);
  });

  it("connects to the vetted address, not to a second DNS answer", async () => {
    const result = await sendWebhook({
      url: new URL(`http://pinned.invalid:${receiver.port}/pinned`),
      addresses: [{ address: "127.0.0.1", family: 4 }],
      headers: { "content-type": "application/json" },
      body: "{}",
      timeoutMs: 2_000,
    });
    expect(result).toMatchObject({ statusCode: 200, error: null });
    const request = receiver.requests.find((received) => received.path === "/pinned");
    expect(request?.headers.host).toBe(`pinned.invalid:${receiver.port}`);
  });
});

describe("a delivery with private destinations allowed (on-premises receivers)", () => {
  const deps = (extra: { readonly resolve?: HostResolver } = {}) => ({
    db,
    clock: { now: () => new Date() },
    logger: pino({ level: "silent" }),
    secrets: testSecretBox,
    policy: development,
    timeoutMs: 2_000,
    random: () => 0.5,
    ...extra,
  });

  const oneDelivery = async (url: string) => {
    const companyId = await insertCompany(db);
    await insertEndpoint(db, companyId, url);
    await record(db, [{ companyId, type: "debt.created", data: {}, occurredAt: new Date() }]);
    const delivery = await db.selectFrom("webhook_deliveries").select("id").where("company_id", "=", companyId).executeTakeFirstOrThrow();
    return { companyId, deliveryId: delivery.id };
  };

  it("resolves the receiver's name over DNS off libuv's thread pool, so it is delivered while the pool is held", async () => {
    const names = await startNameServer({ "receiver.onprem.test": { a: ["127.0.0.1"] } });
    const delivery = await oneDelivery(`http://receiver.onprem.test:${receiver.port}/onprem-dns`);
    const release = await holdThreadPool();
    try {
      const report = await deliverWebhook(deps({ resolve: dnsResolver({ servers: [names.server] }) }), delivery);
      expect(report).toMatchObject({ outcome: "succeeded", statusCode: 200 });
    } finally {
      await release();
      await names.close();
    }
    expect(receiver.requests.find((request) => request.path === "/onprem-dns")?.headers.host).toBe(`receiver.onprem.test:${receiver.port}`);
  });

  it("reaches localhost without the system resolver, while the pool is held", async () => {
    const delivery = await oneDelivery(`http://localhost:${receiver.port}/onprem-localhost`);
    const release = await holdThreadPool();
    try {
      expect(await deliverWebhook(deps(), delivery)).toMatchObject({ outcome: "succeeded", statusCode: 200 });
    } finally {
      await release();
    }
  });

  it("resolves localhost, then the hosts file, then DNS, all while the pool is held", async () => {
    const names = await startNameServer({ "dns-only.onprem.test": { a: ["10.1.2.3"] }, "both.onprem.test": { a: ["10.9.9.9"] } });
    const directory = mkdtempSync(join(tmpdir(), "hosts-"));
    const hostsFile = join(directory, "hosts");
    writeFileSync(hostsFile, "# on-premises receivers\n127.0.0.1\tlocalhost\n10.0.0.5 Receiver.Hosts.test both.onprem.test # the receiver\nfd00::5 receiver.hosts.test\n");
    const resolve = privateDestinationResolver({ servers: [names.server], hostsFile });
    const release = await holdThreadPool();
    try {
      const loopback = [
        { address: "127.0.0.1", family: 4 },
        { address: "::1", family: 6 },
      ];
      expect(await resolve("localhost")).toEqual(loopback);
      expect(await resolve("api.localhost.")).toEqual(loopback);
      expect(await resolve("receiver.hosts.test")).toEqual([
        { address: "10.0.0.5", family: 4 },
        { address: "fd00::5", family: 6 },
      ]);
      expect(await resolve("both.onprem.test")).toEqual([{ address: "10.0.0.5", family: 4 }]);
      expect(await resolve("dns-only.onprem.test")).toEqual([{ address: "10.1.2.3", family: 4 }]);
      await expect(resolve("nowhere.onprem.test")).rejects.toThrow();
    } finally {
      await release();
      await names.close();
      rmSync(directory, { recursive: true });
    }
  });

  it("records a name that does not resolve as a failed attempt naming the host, and sends nothing", async () => {
    const names = await startNameServer({});
    const delivery = await oneDelivery(`http://missing.onprem.test:${receiver.port}/onprem-missing`);
    try {
      expect(await deliverWebhook(deps({ resolve: dnsResolver({ servers: [names.server] }) }), delivery)).toMatchObject({ outcome: "retry_scheduled" });
    } finally {
      await names.close();
    }
    expect(await attemptsOf(db, delivery.deliveryId)).toMatchObject([{ status_code: null, error: "request failed: host missing.onprem.test could not be resolved" }]);
    expect(receiver.requests.filter((request) => request.path === "/onprem-missing")).toEqual([]);
  });
});
