/**
 * Where a debtor's clock may be: the IANA time zones the debtor may live in,
 * from the debt's country (ISO 3166 alpha-2, or the country's name),
 * narrowed by the postal code where a rule does it reliably
 * (`PostalTimeZones`), or from the phone number's country when the debt has
 * no country. Several zones may remain (a country that spans zones, with no
 * postal rule): the compliance guard then allows an instant only when every
 * candidate allows it. A debtor with neither country nor phone country gets
 * the company's zone.
 */
import { getAllCountries, getCountry } from "countries-and-timezones";
import { parsePhoneNumberFromString, isSupportedCountry } from "libphonenumber-js";
import * as PostalTimeZones from "./PostalTimeZones.ts";

/** What the zones are derived from: the fields of a debt's debtor. */
export interface Location {
  readonly country: string | null;
  readonly postalCode: string | null;
  readonly phone: string | null;
}

/** The zone of last resort, when even the company's zone is not one this runtime knows. */
export const fallbackZone = "UTC";

const knownZones = new Map<string, boolean>();

/** Tells whether this runtime knows `name` as a time zone (IANA name, or "UTC"). */
export const isTimeZone = (name: string): boolean => {
  const known = knownZones.get(name);
  if (known !== undefined) return known;
  let valid: boolean;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    valid = name.length > 0;
  } catch {
    valid = false;
  }
  knownZones.set(name, valid);
  return valid;
};

/** The company's zone when this runtime knows it, otherwise UTC. */
export const companyZone = (zone: string): string => (isTimeZone(zone) ? zone : fallbackZone);

const fold = (text: string): string =>
  text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z]+/g, " ")
    .trim();

/** Languages whose country names are recognised, besides the dataset's English ones. */
const nameLanguages = ["en", "fr", "de", "es", "it", "pt", "nl"];
/** Common names that are neither a code nor a name of the languages above. */
const aliases: ReadonlyArray<readonly [string, string]> = [
  ["usa", "US"],
  ["uk", "GB"],
  ["great britain", "GB"],
  ["england", "GB"],
];

let countryByName: Map<string, string> | undefined;

const namesTable = (): Map<string, string> => {
  const table = new Map<string, string>(aliases);
  const codes = Object.keys(getAllCountries());
  for (const language of nameLanguages) {
    const names = new Intl.DisplayNames([language], { type: "region", fallback: "none" });
    for (const code of codes) {
      const name = names.of(code);
      if (name !== undefined && !table.has(fold(name))) table.set(fold(name), code);
    }
  }
  for (const entry of Object.values(getAllCountries()))
    if (!table.has(fold(entry.name))) table.set(fold(entry.name), entry.id);
  return table;
};

/**
 * The upper-case ISO 3166 alpha-2 code of a debt's `country` (contract: "code
 * or name"): a two-letter code in any case, or a country's name in English,
 * French, German, Spanish, Italian, Portuguese or Dutch (the runtime's own
 * names, and the zone dataset's), accents, case and punctuation aside; null
 * otherwise.
 */
export const countryCode = (country: string | null): string | null => {
  if (country === null) return null;
  const text = country.trim();
  if (/^[A-Za-z]{2}$/.test(text) && getCountry(text.toUpperCase()) !== null) return text.toUpperCase();
  countryByName ??= namesTable();
  return countryByName.get(fold(text)) ?? null;
};

/** The country of a phone number (international format, or national in `defaultCountry`), or null. */
export const phoneCountry = (phone: string | null, defaultCountry: string | null): string | null => {
  if (phone === null || phone.trim() === "") return null;
  const parsed =
    defaultCountry !== null && isSupportedCountry(defaultCountry)
      ? parsePhoneNumberFromString(phone, defaultCountry)
      : parsePhoneNumberFromString(phone);
  return parsed?.country ?? null;
};

/** Tells whether a phone number can be dialled: it parses, and has a possible length for its country. */
export const isDiallable = (phone: string | null, defaultCountry: string | null): boolean => {
  if (phone === null || phone.trim() === "") return false;
  const parsed =
    defaultCountry !== null && isSupportedCountry(defaultCountry)
      ? parsePhoneNumberFromString(phone, defaultCountry)
      : parsePhoneNumberFromString(phone);
  return parsed?.isPossible() ?? false;
};

const countryZoneCache = new Map<string, ReadonlyArray<string>>();

/** A country's zones that this runtime knows, in the dataset's order. */
export const countryZones = (code: string): ReadonlyArray<string> => {
  const cached = countryZoneCache.get(code);
  if (cached !== undefined) return cached;
  const zones = (getCountry(code)?.timezones ?? []).filter(isTimeZone);
  countryZoneCache.set(code, zones);
  return zones;
};

/**
 * The debtor's candidate time zones, sorted, never empty. The debt's country
 * decides the list (a phone number abroad does not say where the debtor
 * lives); the phone's country stands in when the debt has none; the postal
 * code narrows the country's list where `PostalTimeZones` has a rule for it.
 * Unknown country and phone: the company's zone.
 *
 * @example
 * candidates({ country: "fr", postalCode: "97200", phone: null }, "Europe/Paris") // ["America/Martinique"]
 * candidates({ country: null, postalCode: null, phone: "+14165550123" }, "Europe/Paris") // Canada's zones
 */
export const candidates = (debtor: Location, companyTimeZone: string): string[] => {
  const fromAddress = countryCode(debtor.country);
  const code = fromAddress ?? phoneCountry(debtor.phone, null);
  const zones = code === null ? [] : countryZones(code);
  if (code === null || zones.length === 0) return [companyZone(companyTimeZone)];
  const narrowed =
    fromAddress !== null && debtor.postalCode !== null
      ? PostalTimeZones.narrow(code, debtor.postalCode, zones)?.filter(isTimeZone)
      : undefined;
  const chosen = narrowed !== undefined && narrowed.length > 0 ? narrowed : zones;
  return [...new Set(chosen)].sort();
};
