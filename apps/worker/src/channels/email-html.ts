/**
 * The HTML part of an e-mail, derived from its rendered text: every
 * character of the text is escaped (the layout is a Liquid template with
 * automatic escaping), blank lines separate paragraphs, line breaks become
 * `<br>`, and http(s) addresses become links. Administrators write plain
 * text, so nothing a debt holds can inject markup.
 */
import { Liquid } from "liquidjs";

const engine = new Liquid({ templates: {}, outputEscape: "escape", strictFilters: true, ownPropertyOnly: true });

const layout = engine.parse(
  '<!doctype html><html lang="{{ language }}"><head><meta charset="utf-8"><title>{{ subject }}</title></head>' +
    '<body style="font-family: sans-serif; line-height: 1.5">' +
    "{% for paragraph in paragraphs %}<p>" +
    "{% for line in paragraph %}{% unless forloop.first %}<br>{% endunless %}" +
    '{% for part in line %}{% if part.href %}<a href="{{ part.href }}">{{ part.text }}</a>{% else %}{{ part.text }}{% endif %}{% endfor %}' +
    "{% endfor %}</p>{% endfor %}</body></html>",
);

const link = /\bhttps?:\/\/[^\s<>"]+[^\s<>".,;:!?)\]'}]/g;

interface Part {
  readonly text: string;
  readonly href: string | null;
}

const partsOf = (line: string): ReadonlyArray<Part> => {
  const parts: Part[] = [];
  let last = 0;
  for (const match of line.matchAll(link)) {
    if (match.index > last) parts.push({ text: line.slice(last, match.index), href: null });
    parts.push({ text: match[0], href: match[0] });
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
}): string => {
  const paragraphs = input.body
    .replace(/\r\n?/g, "\n")
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== "")
    .map((paragraph) => paragraph.split("\n").map(partsOf));
  return String(engine.renderSync(layout, { language: input.language, subject: input.subject ?? "", paragraphs }));
};
