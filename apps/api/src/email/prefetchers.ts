/**
 * Which fetches of an e-mail's pixel or links are made by a machine rather
 * than the debtor (docs/decisions/0656): such a fetch counts once per
 * followup at most, and a scanned link never marks `triggered_payment`.
 * Recognised by user agent (mail providers' image proxies, security
 * gateways' link scanners, HTTP libraries, no user agent at all), by method
 * (a HEAD fetches nothing a person sees) and by source address (Apple Mail
 * Privacy Protection fetches from Apple's 17.0.0.0/8; Microsoft Defender
 * Safe Links and Exchange Online Protection from Microsoft's published
 * ranges). Source addresses only help where the api sees the client's own
 * address (the Koa app does not read `X-Forwarded-For`).
 */
import { BlockList, isIPv4, isIPv6 } from "node:net";

/** User-agent fragments of known prefetchers and scanners, lower case (docs/channels.md lists them). */
export const automatedUserAgents: ReadonlyArray<string> = [
  "googleimageproxy",
  "ggpht.com",
  "yahoomailproxy",
  "bingpreview",
  "barracuda",
  "proofpoint",
  "mimecast",
  "trendmicro",
  "symantec",
  "forcepoint",
  "safelinks",
  "python-requests",
  "go-http-client",
  "curl/",
  "wget/",
];

/** Source ranges of known prefetchers: Apple (Mail Privacy Protection) and Microsoft's mail protection. */
export const automatedRanges: ReadonlyArray<readonly [string, number]> = [
  ["17.0.0.0", 8],
  ["40.92.0.0", 15],
  ["40.107.0.0", 16],
  ["52.100.0.0", 14],
  ["104.47.0.0", 17],
];

const ranges = new BlockList();
for (const [network, prefix] of automatedRanges) ranges.addSubnet(network, prefix, "ipv4");

/** The IPv4 address of an IPv4-mapped IPv6 one (`::ffff:17.1.2.3`), or the address as given. */
const plain = (address: string): string => (address.startsWith("::ffff:") ? address.slice(7) : address);

/** Whether a fetch was made by a prefetcher or a scanner rather than a person. */
export const isAutomatedFetch = (request: {
  readonly method: string;
  readonly userAgent: string | undefined;
  readonly address: string | undefined;
}): boolean => {
  if (request.method === "HEAD") return true;
  const agent = (request.userAgent ?? "").toLowerCase().trim();
  if (agent === "" || automatedUserAgents.some((fragment) => agent.includes(fragment))) return true;
  const address = plain(request.address ?? "");
  return (isIPv4(address) && ranges.check(address, "ipv4")) || (isIPv6(address) && ranges.check(address, "ipv6"));
};
