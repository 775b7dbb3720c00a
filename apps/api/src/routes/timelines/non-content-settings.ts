/**
 * Second line of defence for timeline actions (contract 4.7): content lives
 * in its own column that is never read, and a configuration key that names
 * content anyway (a subject or callback number filed in the wrong column) is
 * dropped too, so only settings such as voice, attempts or sender name remain.
 */

const CONTENT_KEY = /subject|body|message|template|content|script|callback|html|text|greeting|signature|prompt/i;

/** The top-level settings of `configuration` whose names do not denote message content. */
export const nonContentSettings = (configuration: unknown): Record<string, unknown> => {
  if (typeof configuration !== "object" || configuration === null || Array.isArray(configuration)) return {};
  return Object.fromEntries(Object.entries(configuration).filter(([key]) => !CONTENT_KEY.test(key)));
};
