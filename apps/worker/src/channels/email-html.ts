/**
 * The HTML part of an e-mail, derived from its rendered text: every
 * character of the text is escaped (the layout is a Liquid template with
 * automatic escaping), blank lines separate paragraphs, line breaks become
 * `<br>`, and http(s) addresses become links. Administrators write plain
 * text, so nothing a debt holds can inject markup. With tracking, each link
 * goes through the api's click route, and the open pixel and the
 * unsubscribe link end the document (docs/decisions/0655).
 */
import { Liquid } from "liquidjs";

const engine = new Liquid({ templates: {}, outputEscape: "escape", strictFilters: true, ownPropertyOnly: true });

const layout = engine.parse(
  '<!doctype html><html lang="{{ language }}"><head><meta charset="utf-8"><title>{{ subject }}</title></head>' +
    '<body style="font-family: sans-serif; line-height: 1.5">' +
    "{% for paragraph in paragraphs %}<p>" +
    "{% for line in paragraph %}{% unless forloop.first %}<br>{% endunless %}" +
    '{% for part in line %}{% if part.href %}<a href="{{ part.href }}">{{ part.text }}</a>{% else %}{{ part.text }}{% endif %}{% endfor %}' +
    "{% endfor %}</p>{% endfor %}" +
    '{% if unsubscribe %}<p style="font-size: 12px; color: #666"><a href="{{ unsubscribe.href }}">{{ unsubscribe.text }}</a></p>{% endif %}' +
    '{% if pixel %}<img src="{{ pixel }}" width="1" height="1" alt="" style="border: 0">{% endif %}' +
    "</body></html>",
);

/** The tracked parts of the HTML: links go through `link`, the pixel and the unsubscribe link are added. */
export interface HtmlTracking {
  readonly pixelUrl: string;
  readonly linkUrl: (target: string) => string;
  readonly unsubscribeUrl: string;
}

/** The unsubscribe line of an e-mail in its language. */
export const unsubscribeText = (language: string): string =>
  language === "fr" ? "Se désabonner de ces e-mails" : "Unsubscribe from these e-mails";

const linkPattern = /\bhttps?:\/\/[^\s<>"]+[^\s<>".,;:!?)\]'}]/g;

interface Part {
  readonly text: string;
  readonly href: string | null;
}

const partsOf = (line: string, link: (target: string) => string): ReadonlyArray<Part> => {
  const parts: Part[] = [];
  let last = 0;
  for (const match of line.matchAll(linkPattern)) {
    if (match.index > last) parts.push({ text: line.slice(last, match.index), href: null });
    parts.push({ text: match[0], href: link(match[0]) });
    last = match.index + match[0].length;
  }
  if (last < line.length) parts.push({ text: line.slice(last), href: null });
  return parts;
};

/** The HTML document of an e-mail whose text is `body`. */
export const htmlOf = (input: {
  readonly subject: string | null;
  readonly body: string;
  readonly language: string;
  readonly tracking?: HtmlTracking;
}): string => {
  const tracking = input.tracking;
  const link = tracking === undefined ? (target: string) => target : tracking.linkUrl;
  const paragraphs = input.body
    .replace(/\r\n?/g, "\n")
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== "")
    .map((paragraph) => paragraph.split("\n").map((line) => partsOf(line, link)));
  return String(
    engine.renderSync(layout, {
      language: input.language,
      subject: input.subject ?? "",
      paragraphs,
      pixel: tracking?.pixelUrl ?? null,
      unsubscribe:
        tracking === undefined ? null : { href: tracking.unsubscribeUrl, text: unsubscribeText(input.language) },
    }),
  );
};
