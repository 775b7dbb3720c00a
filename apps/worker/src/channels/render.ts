/**
 * Renders a step's content for one debt (docs/templates.md): subject and
 * body are Liquid templates (liquidjs) over the fields of `RenderContext`;
 * a step that leaves one out, or leaves it blank, gets its channel's default
 * template in the debtor's language. The result is plain text: channels send
 * it as is, and the e-mail adapter derives the HTML part from it, escaped
 * (email-html.ts). Templates cannot read files (`include`, `render` and
 * `layout` find nothing) and are bounded in size, renders and memory, since
 * administrators write them. A template that does not parse or render
 * raises `TemplateError`, which fails the step for good: sending it again
 * would fail the same way.
 */
import type { TimelineDefinition } from "@dc/domain";
import { Data } from "effect";
import { Liquid, type Template } from "liquidjs";
import { defaultTemplate, hasSubject } from "./default-templates.ts";
import type { RenderContext } from "./render-context.ts";

export type { RenderContext } from "./render-context.ts";

/** A subject or body that is not a valid template, or failed to render. */
export class TemplateError extends Data.TaggedError("TemplateError")<{
  readonly part: "subject" | "body";
  readonly detail: string;
}> {
  override get message(): string {
    return `the step's ${this.part} template is invalid: ${this.detail}`;
  }
}

const engine = new Liquid({
  // An in-memory template map, empty: no tag can reach the file system.
  templates: {},
  strictFilters: true,
  strictVariables: false,
  ownPropertyOnly: true,
  parseLimit: 100_000,
  renderLimit: 100_000,
  memoryLimit: 10_000_000,
});

/** Parsed templates by source; the same few templates serve every debt of a timeline. */
const parsed = new Map<string, ReadonlyArray<Template>>();
const maxParsed = 1_000;

const parse = (source: string, part: TemplateError["part"]): ReadonlyArray<Template> => {
  const cached = parsed.get(source);
  if (cached !== undefined) return cached;
  let templates: ReadonlyArray<Template>;
  try {
    templates = engine.parse(source);
  } catch (error) {
    throw new TemplateError({ part, detail: error instanceof Error ? error.message : String(error) });
  }
  if (parsed.size >= maxParsed) parsed.clear();
  parsed.set(source, templates);
  return templates;
};

const render = (source: string, context: RenderContext, part: TemplateError["part"]): string => {
  const templates = parse(source, part);
  try {
    return String(engine.renderSync(templates as Template[], context));
  } catch (error) {
    throw new TemplateError({ part, detail: error instanceof Error ? error.message : String(error) });
  }
};

const given = (text: string | undefined): string | undefined =>
  text === undefined || text.trim() === "" ? undefined : text;

/** Lines of a subject joined by spaces: a header holds one line. No-break spaces (French amounts) stay. */
const oneLine = (text: string): string =>
  text
    .replace(/[\r\n\t\v\f\u2028\u2029]+/g, " ")
    .replace(/ {2,}/g, " ")
    .trim();

/**
 * The step's subject (null for channels without one) and body for the debt
 * whose fields `context` holds.
 *
 * @example renderStep({ channel: "sms", content: { body: "Hi {{ firstname }}" }, ... }, context) // { subject: null, body: "Hi Jane" }
 */
export const renderStep = (
  step: TimelineDefinition.Step,
  context: RenderContext,
): { subject: string | null; body: string } => {
  const fallback = defaultTemplate(step.channel, context.language);
  const subjectSource = given(step.content.subject) ?? fallback.subject;
  return {
    subject:
      hasSubject(step.channel) && subjectSource !== null ? oneLine(render(subjectSource, context, "subject")) : null,
    body: render(given(step.content.body) ?? fallback.body, context, "body").trim(),
  };
};

/** Why a step's content would not render (for validating a definition before it is stored), or undefined. */
export const contentProblem = (content: TimelineDefinition.Content): TemplateError | undefined => {
  for (const part of ["subject", "body"] as const) {
    const source = given(content[part]);
    if (source === undefined) continue;
    try {
      parse(source, part);
    } catch (error) {
      if (error instanceof TemplateError) return error;
      throw error;
    }
  }
  return undefined;
};
