/**
 * The letter's PDF (docs/decisions/0650), drawn with pdfkit on US Letter
 * pages (8.5 x 11 in, the size print-and-mail providers such as Lob take):
 * the company and the date, the debtor's address block, the subject line,
 * the rendered body, and a summary of what is owed (creditor, amount, due
 * date, reference, payment link), labelled in the letter's language. The
 * standard Helvetica fonts need no font file; they write Windows-1252, so
 * text outside it is folded to its closest Latin letters first. The
 * document's dates are the send's, so one attempt always renders the same
 * bytes.
 */
import PDFDocument from "pdfkit";
import type { LetterParts } from "./letter.ts";
import type { Language } from "./render-context.ts";

export interface LetterContent {
  readonly parts: LetterParts;
  readonly subject: string | null;
  readonly body: string;
  readonly language: Language;
  /** The send's time: the letter's date and the document's creation date. */
  readonly at: Date;
}

const labels: Readonly<Record<Language, Readonly<Record<string, string>>>> = {
  en: {
    summary: "Summary",
    creditor: "Creditor",
    amount: "Amount due",
    dueDate: "Due date",
    reference: "Invoice",
    pay: "Pay online",
  },
  fr: {
    summary: "Récapitulatif",
    creditor: "Créancier",
    amount: "Montant dû",
    dueDate: "Échéance",
    reference: "Facture",
    pay: "Payer en ligne",
  },
};

/** Windows-1252's characters above Latin-1's control range (0x80-0x9F), which the standard fonts draw. */
const cp1252Extras = new Set("€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ");

const encodable = (character: string): boolean => {
  const code = character.codePointAt(0)!;
  return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || cp1252Extras.has(character);
};

/**
 * Text the standard fonts can draw: thin and narrow spaces (French number
 * grouping) become no-break spaces, other characters outside Windows-1252
 * lose their accents (`ł` stays `?`, `ő` becomes `o`), and what remains
 * unencodable becomes `?`.
 *
 * @example toWinAnsi("1\u202f234,56\u00a0€") // "1\u00a0234,56\u00a0€"
 */
export const toWinAnsi = (text: string): string =>
  Array.from(text.replace(/[\u2000-\u200a\u202f\u205f]/g, "\u00a0"), (character) => {
    if (character === "\n" || encodable(character)) return character;
    const folded = character.normalize("NFKD").replace(/\p{M}/gu, "");
    return Array.from(folded).every(encodable) && folded !== "" ? folded : "?";
  }).join("");

const dateOf = (at: Date, language: Language): string =>
  new Intl.DateTimeFormat(language === "fr" ? "fr-FR" : "en-GB", { dateStyle: "long", timeZone: "UTC" }).format(at);

const countryNames = {
  en: new Intl.DisplayNames("en", { type: "region" }),
  fr: new Intl.DisplayNames("fr", { type: "region" }),
};

/** The address block's lines: name, company, street, postal code and city, and the country's name in capitals. */
export const addressLines = (parts: LetterParts, language: Language): ReadonlyArray<string> =>
  [
    parts.to.name,
    parts.to.company,
    parts.to.line1,
    [parts.to.postalCode, parts.to.city].filter((part) => part !== null).join(" "),
    parts.to.country === null ? null : (countryNames[language].of(parts.to.country) ?? parts.to.country).toUpperCase(),
  ].filter((line): line is string => line !== null && line !== "");

/**
 * The letter as PDF bytes.
 *
 * @example const pdf = await renderLetterPdf({ parts, subject, body, language: "en", at: new Date() })
 */
export const renderLetterPdf = (content: LetterContent): Promise<Buffer> => {
  const { parts, language } = content;
  const label = labels[language];
  const doc = new PDFDocument({
    size: "LETTER",
    margins: { top: 72, bottom: 72, left: 72, right: 72 },
    compress: true,
    info: {
      Title: toWinAnsi(content.subject ?? parts.company),
      Author: toWinAnsi(parts.company),
      CreationDate: content.at,
      ModDate: content.at,
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on("data", (chunk: Buffer) => chunks.push(chunk));
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);
  });
  const write = (text: string, options: PDFKit.Mixins.TextOptions = {}) => doc.text(toWinAnsi(text), options);
  const width = doc.page.width - 144;

  doc.font("Helvetica-Bold").fontSize(12);
  write(parts.company);
  doc.font("Helvetica").fontSize(10);
  if (parts.creditor !== parts.company)
    write(language === "fr" ? `Pour le compte de ${parts.creditor}` : `On behalf of ${parts.creditor}`);
  write(dateOf(content.at, language), { align: "right", width });

  doc.moveDown(2);
  doc.fontSize(11);
  for (const line of addressLines(parts, language)) write(line, { indent: width / 2 });

  doc.moveDown(2);
  if (content.subject !== null) {
    doc.font("Helvetica-Bold");
    write(content.subject, { width });
    doc.font("Helvetica").moveDown();
  }
  for (const paragraph of content.body.split(/\n{2,}/)) {
    write(paragraph, { width, align: "left" });
    doc.moveDown(0.8);
  }

  doc.moveDown();
  doc.font("Helvetica-Bold").fontSize(11);
  write(label.summary!);
  doc.font("Helvetica").fontSize(10);
  const facts: ReadonlyArray<readonly [string, string | null]> = [
    [label.creditor!, parts.creditor],
    [label.amount!, parts.amount],
    [label.dueDate!, parts.dueDate],
    [label.reference!, parts.invoiceReference],
    [label.pay!, parts.paymentLink],
  ];
  for (const [name, value] of facts) if (value !== null) write(`${name}: ${value}`, { width });

  doc.end();
  return done;
};
