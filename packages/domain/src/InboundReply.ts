/**
 * What a debtor's reply to an SMS or a WhatsApp message means
 * (docs/decisions/0631, docs/channels.md): an opt-out of the channel, a
 * response that reads as a dispute, or another response. Pure keyword rules
 * on the message's text, the same in English and French.
 */

/**
 * The opt-out keywords: a reply that is one of them, once trimmed of spaces
 * and punctuation at its edges, compared without case nor accents, opts the
 * debtor out of the channel. Twilio's own opt-out words and their French
 * equivalents.
 */
export const optOutKeywords: ReadonlyArray<string> = [
  "STOP",
  "STOPALL",
  "UNSUBSCRIBE",
  "CANCEL",
  "END",
  "QUIT",
  "ARRET",
  "ARRÊT",
  "DESINSCRIRE",
];

/**
 * Words and phrases that make a reply read as a dispute of the debt: the
 * debtor says it is not theirs, already paid, or contests it. Each is matched
 * as whole words anywhere in the reply, without case, accents nor
 * punctuation.
 */
export const disputePhrases: ReadonlyArray<string> = [
  // English
  "not my debt",
  "not my bill",
  "not mine",
  "don't owe",
  "do not owe",
  "never owed",
  "owe nothing",
  "already paid",
  "paid already",
  "paid it",
  "dispute",
  "disputed",
  "disputing",
  "contest",
  "contested",
  "contesting",
  "wrong person",
  "identity theft",
  "fraud",
  // French
  "pas ma dette",
  "pas la mienne",
  "pas à moi",
  "je ne dois rien",
  "dois rien",
  "déjà payé",
  "déjà payée",
  "déjà réglé",
  "déjà réglée",
  "j'ai payé",
  "j'ai réglé",
  "conteste",
  "contester",
  "contestation",
  "litige",
  "erreur de personne",
  "usurpation",
];

/** Lower case, accents removed, every run of non-letters and non-digits one space, trimmed. */
const words = (text: string): string =>
  text
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();

const optOuts = new Set(optOutKeywords.map(words));
const disputes = disputePhrases.map((phrase) => ` ${words(phrase)} `);

/** Whether the whole reply is an opt-out keyword. */
export const isOptOut = (body: string): boolean => optOuts.has(words(body));

/** Whether the reply reads as a dispute of the debt. */
export const readsAsDispute = (body: string): boolean => {
  const padded = ` ${words(body)} `;
  return disputes.some((phrase) => padded.includes(phrase));
};

export type Meaning = "opt_out" | "dispute" | "response";

/** What a reply means: an opt-out first, then a dispute, else a plain response. */
export const meaningOf = (body: string): Meaning =>
  isOptOut(body) ? "opt_out" : readsAsDispute(body) ? "dispute" : "response";
