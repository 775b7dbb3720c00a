/**
 * Generation and storage of OAuth secrets: client secrets, access and
 * refresh tokens and authorization codes are 32 random bytes, base64url,
 * with a short prefix so leaked credentials are recognisable by secret
 * scanners. Only their SHA-256 is stored (they carry 256 bits of entropy, so
 * a slow hash adds nothing); comparisons are constant-time.
 */
import { createHash, randomBytes, scrypt as scryptCallback, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";

export const secretPrefixes = {
  clientId: "dcc_",
  clientSecret: "dcs_",
  accessToken: "dcat_",
  refreshToken: "dcrt_",
  authorizationCode: "dcac_",
} as const;

/** A new random secret with its prefix. */
export const newSecret = (prefix: string, bytes = 32): string => `${prefix}${randomBytes(bytes).toString("base64url")}`;

export const newClientId = (): string => newSecret(secretPrefixes.clientId, 16);

/** SHA-256 of a secret, as stored. */
export const hashSecret = (secret: string): Buffer => createHash("sha256").update(secret, "utf8").digest();

/** Constant-time check of a presented secret against its stored SHA-256 (hex or bytes). */
export const secretMatches = (presented: string, stored: Buffer | string): boolean => {
  const expected = typeof stored === "string" ? Buffer.from(stored, "hex") : stored;
  const actual = hashSecret(presented);
  return expected.byteLength === actual.byteLength && timingSafeEqual(expected, actual);
};

const scrypt = promisify(scryptCallback) as (password: string, salt: Buffer, keylen: number, options: { N: number; r: number; p: number }) => Promise<Buffer>;
/**
 * OWASP's scrypt settings for 16 MiB of memory (Password Storage Cheat
 * Sheet: N=2^14, r=8, p=5): about 150 ms a hash on a 2-core machine. Memory
 * stays what p=1 uses, which the api's footprint needs; p buys the rest of
 * the work. Each hash records its parameters, so hashes made with other
 * settings still verify (docs/decisions/0203).
 */
export const SCRYPT = { N: 16_384, r: 8, p: 5 } as const;

/** Password hash for company users: `scrypt$N$r$p$salt$hash` (base64url parts). */
export const hashPassword = async (password: string): Promise<string> => {
  const salt = randomBytes(16);
  const hash = await scrypt(password.normalize("NFKC"), salt, 32, SCRYPT);
  return ["scrypt", SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString("base64url"), hash.toString("base64url")].join("$");
};

export const verifyPassword = async (password: string, stored: string): Promise<boolean> => {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || n === undefined || r === undefined || p === undefined || salt === undefined || hash === undefined) {
    return false;
  }
  const expected = Buffer.from(hash, "base64url");
  const actual = await scrypt(password.normalize("NFKC"), Buffer.from(salt, "base64url"), expected.byteLength, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return timingSafeEqual(expected, actual);
};
