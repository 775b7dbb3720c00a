/**
 * `MAIL_FROM` read once: the From address of every e-mail, its optional
 * display name (a message's sender name replaces it) and the domain its
 * Message-IDs use.
 */
import addressparser from "nodemailer/lib/addressparser";

export interface Sender {
  readonly name: string;
  readonly address: string;
  readonly domain: string;
}

/** Parses `Name <address>` or a bare address; throws RangeError when it is not exactly one address with a domain. */
export const parseMailFrom = (text: string): Sender => {
  const parsed = addressparser(text, { flatten: true });
  const [first] = parsed;
  const address = first?.address ?? "";
  const at = address.lastIndexOf("@");
  if (parsed.length !== 1 || at <= 0 || at === address.length - 1) {
    throw new RangeError(`MAIL_FROM must be one e-mail address, optionally with a name: ${JSON.stringify(text)}`);
  }
  return { name: first?.name ?? "", address, domain: address.slice(at + 1) };
};
