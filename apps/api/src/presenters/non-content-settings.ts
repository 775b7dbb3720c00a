/**
 * Second line of defence for timeline actions (contract 4.7): content lives
 * in its own column that is never read, and a configuration key that names
 * content anyway (a subject or callback number filed in the wrong column) is
 * dropped too, so only settings such as voice, attempts or sender name remain.
 */

const CONTENT_KEY = /subject|body|message|template|content|script|callback|html|text|greeting|signature|prompt/i;

/** Whether `key` names content, whatever separates its words (`call_back_number`, `Call-Back Phone`, `callBackNumber`). */
const namesContent = (key: string): boolean => CONTENT_KEY.test(key.replace(/[^\p{L}\p{N}]/gu, ""));

/** `value` with every key that denotes message content removed, at any depth (objects inside objects and arrays). */
const withoutContent = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutContent);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !namesContent(key))
      .map(([key, inner]) => [key, withoutContent(inner)]),
  );
};

/** The settings of `configuration` whose names do not denote message content, nested settings included. */
export const nonContentSettings = (configuration: unknown): Record<string, unknown> => {
  if (typeof configuration !== "object" || configuration === null || Array.isArray(configuration)) return {};
  return withoutContent(configuration) as Record<string, unknown>;
};
