/**
 * The few postal-code rules that narrow a country's time zones reliably:
 * a postal code's leading digits or letter name a territory whose zone is
 * fixed by law (France's overseas departments, the Canary Islands, the Azores
 * and Madeira, Hawaii, Alaska and Puerto Rico for the United States, the
 * Canadian provinces, the Australian states). Where a territory spans zones
 * (western Ontario, eastern British Columbia, Alaska), the rule keeps all of
 * them and the guard stays conservative over them. Every other country, and a
 * postal code no rule recognises, keeps the country's full list.
 */

/** A rule: the normalised postal code's prefix, and the zones of the territory it names. */
type Rule = readonly [prefix: string, zones: ReadonlyArray<string>];

const alaska = [
  "America/Anchorage",
  "America/Juneau",
  "America/Sitka",
  "America/Yakutat",
  "America/Nome",
  "America/Metlakatla",
  "America/Adak",
];
const nonContiguousUs = new Set([...alaska, "Pacific/Honolulu"]);

/** Longest prefix first within a country: the first rule that matches wins. */
const rules: { readonly [country: string]: ReadonlyArray<Rule> } = {
  FR: [
    ["971", ["America/Guadeloupe"]],
    ["972", ["America/Martinique"]],
    ["973", ["America/Cayenne"]],
    ["974", ["Indian/Reunion"]],
    ["975", ["America/Miquelon"]],
    ["976", ["Indian/Mayotte"]],
    ["977", ["America/St_Barthelemy"]],
    ["978", ["America/Marigot"]],
    ["986", ["Pacific/Wallis"]],
    ["987", ["Pacific/Tahiti", "Pacific/Marquesas", "Pacific/Gambier"]],
    ["988", ["Pacific/Noumea"]],
    ["", ["Europe/Paris"]],
  ],
  ES: [
    ["35", ["Atlantic/Canary"]],
    ["38", ["Atlantic/Canary"]],
    ["51", ["Africa/Ceuta"]],
    ["52", ["Africa/Ceuta"]],
    ["", ["Europe/Madrid"]],
  ],
  PT: [
    ["90", ["Atlantic/Madeira"]],
    ["91", ["Atlantic/Madeira"]],
    ["92", ["Atlantic/Madeira"]],
    ["93", ["Atlantic/Madeira"]],
    ["94", ["Atlantic/Madeira"]],
    ["95", ["Atlantic/Azores"]],
    ["96", ["Atlantic/Azores"]],
    ["97", ["Atlantic/Azores"]],
    ["98", ["Atlantic/Azores"]],
    ["99", ["Atlantic/Azores"]],
    ["", ["Europe/Lisbon"]],
  ],
  US: [
    ["96799", ["Pacific/Pago_Pago"]],
    ["967", ["Pacific/Honolulu"]],
    ["968", ["Pacific/Honolulu"]],
    [
      "969",
      [
        "Pacific/Guam",
        "Pacific/Palau",
        "Pacific/Chuuk",
        "Pacific/Pohnpei",
        "Pacific/Kosrae",
        "Pacific/Majuro",
        "Pacific/Kwajalein",
      ],
    ],
    ["995", alaska],
    ["996", alaska],
    ["997", alaska],
    ["998", alaska],
    ["999", alaska],
    ["006", ["America/Puerto_Rico"]],
    ["007", ["America/Puerto_Rico"]],
    ["008", ["America/Puerto_Rico"]],
    ["009", ["America/Puerto_Rico"]],
    // Military post offices (APO, FPO) abroad: no rule, the full list stays.
    ["09", []],
    ["340", []],
    ["962", []],
    ["963", []],
    ["964", []],
    ["965", []],
    ["966", []],
  ],
  CA: [
    ["A", ["America/St_Johns", "America/Goose_Bay"]],
    ["B", ["America/Halifax", "America/Glace_Bay"]],
    ["C", ["America/Halifax"]],
    ["E", ["America/Moncton"]],
    ["G", ["America/Toronto", "America/Halifax", "America/Puerto_Rico"]],
    ["H", ["America/Toronto"]],
    ["J", ["America/Toronto"]],
    ["K", ["America/Toronto"]],
    ["L", ["America/Toronto"]],
    ["M", ["America/Toronto"]],
    ["N", ["America/Toronto"]],
    ["P", ["America/Toronto", "America/Winnipeg", "America/Panama"]],
    ["R", ["America/Winnipeg"]],
    ["S", ["America/Regina", "America/Swift_Current", "America/Edmonton"]],
    ["T", ["America/Edmonton"]],
    ["V", ["America/Vancouver", "America/Edmonton", "America/Phoenix", "America/Dawson_Creek", "America/Fort_Nelson"]],
    [
      "X",
      [
        "America/Edmonton",
        "America/Inuvik",
        "America/Iqaluit",
        "America/Rankin_Inlet",
        "America/Cambridge_Bay",
        "America/Resolute",
      ],
    ],
    ["Y", ["America/Whitehorse", "America/Dawson"]],
  ],
  AU: [
    ["2880", ["Australia/Broken_Hill"]],
    ["2898", ["Australia/Lord_Howe"]],
    ["2899", ["Pacific/Norfolk"]],
    ["6443", ["Australia/Eucla"]],
    ["6798", ["Indian/Christmas"]],
    ["6799", ["Indian/Cocos"]],
    ["02", ["Australia/Sydney"]],
    ["08", ["Australia/Darwin"]],
    ["09", ["Australia/Darwin"]],
    ["1", ["Australia/Sydney"]],
    ["2", ["Australia/Sydney"]],
    ["3", ["Australia/Melbourne"]],
    ["4", ["Australia/Brisbane"]],
    ["5", ["Australia/Adelaide"]],
    ["6", ["Australia/Perth"]],
    ["7", ["Australia/Hobart"]],
    ["8", ["Australia/Melbourne"]],
    ["9", ["Australia/Brisbane", "Australia/Perth"]],
  ],
};

/** The postal code's shape each rule set reads; another shape is not recognised. */
const shapes: { readonly [country: string]: RegExp } = {
  FR: /^\d{5}$/,
  ES: /^\d{5}$/,
  PT: /^\d{4}(\d{3})?$/,
  US: /^\d{5}(\d{4})?$/,
  CA: /^[A-Z]\d[A-Z]\d[A-Z]\d$/,
  AU: /^\d{4}$/,
};

/**
 * The zones a postal code leaves of its country's list, or null when no
 * rule applies (the country has none, or the code has an unexpected shape).
 * `country` is an upper-case ISO 3166 alpha-2 code; `countryZones` is the
 * country's list, used by the contiguous United States rule.
 */
export const narrow = (
  country: string,
  postalCode: string,
  countryZones: ReadonlyArray<string>,
): ReadonlyArray<string> | null => {
  const code = postalCode.toUpperCase().replace(/[\s-]/g, "");
  const shape = shapes[country];
  if (shape === undefined || !shape.test(code)) return null;
  const rule = rules[country]?.find(([prefix]) => code.startsWith(prefix));
  if (rule !== undefined) return rule[1].length === 0 ? null : rule[1];
  // A United States ZIP code no rule names is in the contiguous states.
  return country === "US" ? countryZones.filter((zone) => !nonContiguousUs.has(zone)) : null;
};
