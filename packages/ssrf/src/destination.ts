/**
 * Where a webhook may be sent (docs/decisions/0454). An endpoint URL is an
 * absolute http(s) URL without credentials or fragment. Unless private
 * destinations are allowed (development and tests), the URL must be https
 * and its host must resolve only to public unicast addresses: a host with ANY
 * loopback, private, link-local, unique-local, multicast, unspecified or
 * otherwise reserved address (IPv4 and IPv6, IPv4-mapped, NAT64 and 6to4
 * forms included) is refused. The api checks at creation and update; the
 * worker checks again before every attempt (DNS may have changed: rebinding)
 * and connects to the addresses it vetted, never resolving twice. Names are
 * resolved over DNS off libuv's thread pool (`dnsResolver`); with private
 * destinations allowed, `localhost` and the hosts file come first
 * (`privateDestinationResolver`).
 */
import { Resolver } from "node:dns/promises";
import { readFileSync } from "node:fs";
import { isIP } from "node:net";

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export interface DestinationPolicy {
  /** `WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS`: true outside production by default, false in production. */
  readonly allowPrivateDestinations: boolean;
}

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves every address of a host name, so tests can substitute a resolver. */
export type HostResolver = (hostname: string) => Promise<ReadonlyArray<ResolvedAddress>>;

/** c-ares' wait for one answer, and how many times it asks: a server that never answers is given up after about 6 s. */
const DNS_QUERY = { timeout: 2_000, tries: 2 } as const;

/**
 * Resolves a name's A and AAAA records over DNS with c-ares (`dns.Resolver`),
 * from the servers of /etc/resolv.conf or `servers`. Never `dns.lookup`: it
 * runs getaddrinfo on libuv's thread pool (4 threads, shared with scrypt,
 * zlib and file access) and cannot be cancelled, so a few names whose server
 * never answers, one company's, held every thread and every other lookup of
 * the process, other companies' included, failed its deadline
 * (docs/decisions/0454). c-ares queries run on the event loop. The hosts
 * file is not read: a destination is a name in DNS.
 */
export const dnsResolver =
  (options: { readonly servers?: ReadonlyArray<string> } = {}): HostResolver =>
  async (hostname) => {
    const resolver = new Resolver(DNS_QUERY);
    if (options.servers !== undefined) resolver.setServers([...options.servers]);
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const addresses: ResolvedAddress[] = [
      ...(v4.status === "fulfilled" ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
      ...(v6.status === "fulfilled" ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
    ];
    if (addresses.length === 0 && v4.status === "rejected") throw v4.reason;
    return addresses;
  };

/** The resolver of the api and the worker: the system's name servers, through c-ares. */
export const systemResolver: HostResolver = dnsResolver();

/** Where `privateDestinationResolver` reads host names from by default. */
export const SYSTEM_HOSTS_FILE = "/etc/hosts";

const LOOPBACK: ReadonlyArray<ResolvedAddress> = [
  { address: "127.0.0.1", family: 4 },
  { address: "::1", family: 6 },
];

/** The addresses a hosts file (`/etc/hosts` format) gives `hostname`, in the file's order. */
export const hostsFileAddresses = (text: string, hostname: string): ReadonlyArray<ResolvedAddress> => {
  const wanted = hostname.toLowerCase();
  const addresses: ResolvedAddress[] = [];
  for (const line of text.split("\n")) {
    const [address, ...names] = (line.split("#")[0] ?? "").trim().split(/\s+/);
    if (address === undefined || !names.some((name) => name.toLowerCase() === wanted)) continue;
    const family = isIP(address.split("%")[0] ?? "");
    if (family !== 0 && !addresses.some((known) => known.address === address)) addresses.push({ address, family: family === 6 ? 6 : 4 });
  }
  return addresses;
};

/**
 * The resolver of the worker when private destinations are allowed
 * (on-premises receivers, development): `localhost` and its subdomains are
 * the loopback addresses (RFC 6761), a name in the hosts file gets the
 * file's addresses, any other name is asked of DNS through c-ares
 * (`dnsResolver`). Never `dns.lookup`, for the reason `dnsResolver` gives:
 * getaddrinfo would read the hosts file and nsswitch too, but on libuv's
 * thread pool, where one company's silent name server holds every other
 * company's deliveries. The hosts file is read synchronously at each
 * resolution (a local file of a few lines: no network wait, so no pool
 * thread and no deadline are needed); the other sources of nsswitch (mDNS,
 * LDAP, NIS...) are not consulted (docs/decisions/0454).
 */
export const privateDestinationResolver = (
  options: { readonly servers?: ReadonlyArray<string>; readonly hostsFile?: string } = {},
): HostResolver => {
  const dns = dnsResolver(options.servers === undefined ? {} : { servers: options.servers });
  return async (hostname) => {
    const name = hostname.toLowerCase().replace(/\.$/, "");
    if (name === "localhost" || name.endsWith(".localhost")) return LOOPBACK;
    let hosts = "";
    try {
      hosts = readFileSync(options.hostsFile ?? SYSTEM_HOSTS_FILE, "utf8");
    } catch {
      // No hosts file: DNS alone.
    }
    const listed = hostsFileAddresses(hosts, name);
    return listed.length > 0 ? listed : dns(hostname);
  };
};

/**
 * The addresses to connect to for `url`'s host: a literal IP address as
 * written, else what `resolve` answers. Throws when the name does not
 * resolve or resolves to nothing.
 */
export const hostAddresses = async (url: URL, resolve: HostResolver): Promise<ReadonlyArray<ResolvedAddress>> => {
  const host = bareHost(url.hostname);
  const family = isIP(host);
  if (family !== 0) return [{ address: host, family: family === 6 ? 6 : 4 }];
  const addresses = await resolve(host);
  if (addresses.length === 0) throw new Error(`no address for ${host}`);
  return addresses;
};

/**
 * `resolve`, failing once `timeoutMs` have passed without an answer, so a
 * name server that never answers cannot hold a delivery (or a request) past
 * its deadline. The lookup itself cannot be cancelled; it is left to finish.
 */
export const resolverWithDeadline =
  (resolve: HostResolver, timeoutMs: number): HostResolver =>
  (hostname) =>
    new Promise((fulfil, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer for ${hostname} within ${timeoutMs} ms`)), timeoutMs);
      resolve(hostname).then(
        (addresses) => {
          clearTimeout(timer);
          fulfil(addresses);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });

export type Vetted =
  | { readonly ok: true; readonly url: URL; readonly addresses: ReadonlyArray<ResolvedAddress> | undefined }
  | {
      readonly ok: false;
      /** Why, in words fit for the caller: it names no address the caller did not write. */
      readonly reason: string;
      /** For a host name: what its resolution gave (unresolvable, or which address is refused). Server logs only. */
      readonly detail?: string;
    };

/**
 * The one answer for a host name that does not resolve or resolves to a
 * refused address: telling the two apart, or naming the address, would let
 * a caller map the deployment's internal names and networks.
 */
export const UNSAFE_HOST_REASON = "host must resolve to public addresses only";

/** Checks the URL's form; `undefined` when acceptable, else why not. */
export const webhookUrlProblem = (value: string, policy: DestinationPolicy): string | undefined => {
  if (value.length > MAX_WEBHOOK_URL_LENGTH) return `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`;
  // The URL parser drops leading and trailing spaces and every tab and newline, and encodes inner spaces:
  // the endpoint would show one URL and be sent to another.
  if (/[\u0000-\u0020\u007f]/.test(value)) return "must not contain spaces or control characters";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute http or https URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be an absolute http or https URL";
  if (!policy.allowPrivateDestinations && url.protocol !== "https:") return "must use https";
  if (url.username !== "" || url.password !== "") return "must not contain credentials";
  if (url.hash !== "" || value.includes("#")) return "must not contain a fragment";
  if (url.hostname === "") return "must have a host";
  return undefined;
};

const bareHost = (hostname: string): string => (hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname);

/**
 * Vets a destination: the URL's form, then (unless private destinations are
 * allowed) every address its host resolves to. `addresses` is what the
 * sender must connect to; `undefined` when private destinations are allowed
 * (the sender then resolves normally).
 */
export const vetDestination = async (value: string, policy: DestinationPolicy, resolve: HostResolver = systemResolver): Promise<Vetted> => {
  const problem = webhookUrlProblem(value, policy);
  if (problem !== undefined) return { ok: false, reason: `url ${problem}` };
  const url = new URL(value);
  if (policy.allowPrivateDestinations) return { ok: true, url, addresses: undefined };
  const host = bareHost(url.hostname);
  let addresses: ReadonlyArray<ResolvedAddress>;
  if (isIP(host) !== 0) {
    addresses = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await resolve(host);
    } catch {
      return { ok: false, reason: UNSAFE_HOST_REASON, detail: `host ${host} could not be resolved` };
    }
    if (addresses.length === 0) return { ok: false, reason: UNSAFE_HOST_REASON, detail: `host ${host} could not be resolved` };
  }
  for (const { address } of addresses) {
    const forbidden = forbiddenAddressReason(address);
    if (forbidden === undefined) continue;
    const why = `destination ${address} is ${forbidden}`;
    // An address the caller wrote in the URL may be named back; one found through DNS may not.
    return isIP(host) !== 0 ? { ok: false, reason: why } : { ok: false, reason: UNSAFE_HOST_REASON, detail: `host ${host}: ${why}` };
  }
  return { ok: true, url, addresses };
};

type Range = readonly [base: bigint, prefix: number, reason: string];

const v4 = (text: string): bigint => text.split(".").reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n);

const IPV4_RANGES: ReadonlyArray<readonly [string, number, string]> = [
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared (carrier-grade NAT)"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "reserved for documentation"],
  ["192.88.99.0", 24, "reserved"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "reserved for benchmarking"],
  ["198.51.100.0", 24, "reserved for documentation"],
  ["203.0.113.0", 24, "reserved for documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];
const ipv4Ranges: ReadonlyArray<Range> = IPV4_RANGES.map(([base, prefix, reason]) => [v4(base), prefix, reason]);

/** The 128-bit value of an IPv6 address (`::` and a trailing dotted quad allowed), or undefined. */
export const ipv6Value = (text: string): bigint | undefined => {
  const address = text.split("%")[0] ?? "";
  if (isIP(address) !== 6) return undefined;
  let body = address;
  let tailWords: string[] = [];
  const lastColon = body.lastIndexOf(":");
  const tail = body.slice(lastColon + 1);
  if (tail.includes(".")) {
    const quad = v4(tail);
    tailWords = [((quad >> 16n) & 0xffffn).toString(16), (quad & 0xffffn).toString(16)];
    body = body.slice(0, lastColon + 1);
    if (!body.endsWith("::")) body = body.slice(0, -1);
  }
  const parts = body.split("::");
  const left = parts[0] ? parts[0].split(":") : [];
  const right = parts.length > 1 && parts[1] ? parts[1].split(":") : [];
  const fill = parts.length > 1 ? 8 - tailWords.length - left.length - right.length : 0;
  const words = [...left, ...Array<string>(Math.max(fill, 0)).fill("0"), ...right, ...tailWords];
  if (words.length !== 8) return undefined;
  return words.reduce((value, word) => (value << 16n) | BigInt(parseInt(word, 16)), 0n);
};

const v6 = (text: string): bigint => ipv6Value(text) ?? 0n;

const IPV6_RANGES: ReadonlyArray<readonly [string, number, string]> = [
  ["::", 128, "unspecified"],
  ["::1", 128, "loopback"],
  ["::", 96, "reserved (IPv4-compatible)"],
  ["64:ff9b:1::", 48, "reserved (local NAT64)"],
  ["100::", 64, "reserved (discard)"],
  ["::ffff:0:0:0", 96, "reserved (IPv4-translated)"],
  ["2001::", 32, "reserved (Teredo)"],
  ["2001:db8::", 32, "reserved for documentation"],
  ["fc00::", 7, "unique-local"],
  ["fe80::", 10, "link-local"],
  ["fec0::", 10, "site-local"],
  ["ff00::", 8, "multicast"],
];
const ipv6Ranges: ReadonlyArray<Range> = IPV6_RANGES.map(([base, prefix, reason]) => [v6(base), prefix, reason]);

const inRange = (value: bigint, bits: number, [base, prefix]: Range): boolean => {
  const shift = BigInt(bits - prefix);
  return value >> shift === base >> shift;
};

const ipv4Reason = (value: bigint): string | undefined => ipv4Ranges.find((range) => inRange(value, 32, range))?.[2];

/**
 * Why `address` may not receive webhooks in production (`"loopback"`,
 * `"private"`...), or undefined for a public unicast address. IPv6 forms
 * that embed an IPv4 address (IPv4-mapped `::ffff:0:0/96`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16`) are judged by the embedded address;
 * IPv4-translated (`::ffff:0:0:0/96`) and Teredo (`2001::/32`) addresses,
 * which reach IPv4 hosts through a translator or relay, are refused.
 */
export const forbiddenAddressReason = (address: string): string | undefined => {
  const bare = bareHost(address);
  const family = isIP(bare.split("%")[0] ?? "");
  if (family === 4) return ipv4Reason(v4(bare));
  if (family !== 6) return "not an IP address";
  const value = ipv6Value(bare);
  if (value === undefined) return "not an IP address";
  if (value >> 32n === 0xffffn) {
    const embedded = ipv4Reason(value & 0xffffffffn);
    return embedded === undefined ? undefined : `${embedded} (IPv4-mapped)`;
  }
  if (value >> 32n === v6("64:ff9b::") >> 32n) {
    const embedded = ipv4Reason(value & 0xffffffffn);
    return embedded === undefined ? undefined : `${embedded} (NAT64)`;
  }
  if (value >> 112n === 0x2002n) {
    const embedded = ipv4Reason((value >> 80n) & 0xffffffffn);
    return embedded === undefined ? undefined : `${embedded} (6to4)`;
  }
  return ipv6Ranges.find((range) => inRange(value, 128, range))?.[2];
};
