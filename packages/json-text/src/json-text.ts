/**
 * Rules every JSON body obeys before the platform reads it, shared by the api
 * (which refuses a body that breaks them) and the client (which checks before
 * sending): bounds on nesting and string length, and text PostgreSQL can
 * store (no NUL character, no unpaired UTF-16 surrogate; JSON allows both as
 * escapes). Also refused: numbers beyond what a double holds (`1e400` parses
 * as Infinity and would be stored as null), the key `__proto__` (objects
 * built from the body would drop it silently) and a key twice in one object
 * (parsers disagree on which value it has). Walks are iterative: hostile
 * input cannot exhaust the stack.
 */

/** Nesting depth and string length bounds of any JSON body. */
export const limits = { maxDepth: 32, maxStringLength: 100_000 } as const;

// Without the `u` flag a regular expression sees UTF-16 code units, so it can find a lone surrogate.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when PostgreSQL can store `text` (in text or jsonb columns). */
export const isStorable = (text: string): boolean => !text.includes("\u0000") && !LONE_SURROGATE.test(text);

/** A body that breaks `limits`, or holds a NUL, an out-of-range number or a `__proto__` key: where (dotted path from `body`) and why. */
export interface LimitViolation {
  readonly path: string;
  readonly message: string;
}

const breaksStringLimits = (text: string): boolean => text.length > limits.maxStringLength || text.includes("\u0000");

const FORBIDDEN_KEY = "__proto__";

const OUT_OF_RANGE = "number out of range";

/**
 * True when `root` breaks `limits` or holds a NUL character (exactly when
 * `findLimitViolation` finds a violation). Allocates no paths: a 20,000-row
 * snapshot body is checked in a few milliseconds, and the path is only
 * built for a body that fails.
 */
export const breaksLimits = (root: unknown): boolean => {
  if (typeof root === "string") return breaksStringLimits(root);
  if (typeof root === "number") return !Number.isFinite(root);
  const containers: Array<object> = [];
  const depths: Array<number> = [];
  if (typeof root === "object" && root !== null) {
    containers.push(root);
    depths.push(0);
  }
  const visit = (child: unknown, depth: number): boolean => {
    if (typeof child === "string") return breaksStringLimits(child);
    if (typeof child === "number") return !Number.isFinite(child);
    if (typeof child === "object" && child !== null) {
      containers.push(child);
      depths.push(depth);
    }
    return false;
  };
  while (containers.length > 0) {
    const container = containers.pop() as object;
    const depth = depths.pop() as number;
    if (depth >= limits.maxDepth) return true;
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) if (visit(container[i], depth + 1)) return true;
    } else {
      const record = container as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        if (breaksStringLimits(key) || key === FORBIDDEN_KEY) return true;
        if (visit(record[key], depth + 1)) return true;
      }
    }
  }
  return false;
};

/** The walk that names where: one path string per value, so only run on a body known to fail. */
export const locateLimitViolation = (root: unknown): LimitViolation | undefined => {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: root, path: "body", depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, path, depth } = item;
    if (typeof value === "string") {
      if (value.length > limits.maxStringLength) return { path, message: `string longer than ${limits.maxStringLength} characters` };
      if (value.includes("\u0000")) return { path, message: "must not contain NUL characters" };
    } else if (typeof value === "number") {
      if (!Number.isFinite(value)) return { path, message: OUT_OF_RANGE };
    } else if (typeof value === "object" && value !== null) {
      if (depth >= limits.maxDepth) return { path, message: `nested deeper than ${limits.maxDepth} levels` };
      if (Array.isArray(value)) {
        value.forEach((element, index) => stack.push({ value: element, path: `${path}.${index}`, depth: depth + 1 }));
      } else {
        for (const [key, element] of Object.entries(value)) {
          if (key.length > limits.maxStringLength || key.includes("\u0000")) return { path, message: "invalid key" };
          if (key === FORBIDDEN_KEY) return { path, message: `the key "${FORBIDDEN_KEY}" is not allowed` };
          stack.push({ value: element, path: `${path}.${key}`, depth: depth + 1 });
        }
      }
    }
  }
  return undefined;
};

/** The first violation of `limits` (or NUL character) in a parsed body, or undefined. */
export const findLimitViolation = (root: unknown): LimitViolation | undefined =>
  breaksLimits(root) ? locateLimitViolation(root) : undefined;

/** The field name a violation is reported on: its path without the leading `body.` (or `body` itself). */
export const violationField = (violation: LimitViolation): string => violation.path.replace(/^body\.?/, "") || "body";

/** The dotted path (from the value itself, "" for the value) of the first unstorable key or string, or undefined. */
export const firstUnstorable = (value: unknown): string | undefined => {
  const stack: Array<{ readonly value: unknown; readonly path: string }> = [{ value, path: "" }];
  const join = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const current = item.value;
    if (typeof current === "string") {
      if (!isStorable(current)) return item.path;
    } else if (Array.isArray(current)) {
      current.forEach((element, index) => stack.push({ value: element, path: join(item.path, String(index)) }));
    } else if (typeof current === "object" && current !== null) {
      for (const [key, element] of Object.entries(current)) {
        if (!isStorable(key)) return item.path;
        stack.push({ value: element, path: join(item.path, key) });
      }
    }
  }
  return undefined;
};

/** The index of the quote that closes the JSON string opening at `open`. */
const closingQuote = (text: string, open: number): number => {
  let end = text.indexOf('"', open + 1);
  for (;;) {
    // Unclosed (not JSON): the string runs to the end.
    if (end < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
};

/** The keys written in `text`, valid JSON: one colon outside strings per key. */
const keysWritten = (text: string): number => {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = closingQuote(text, i);
    else if (c === 0x3a) count++;
  }
  return count;
};

/** The keys the objects of a parsed value hold: fewer than were written when one was written twice. */
const keysHeld = (root: unknown): number => {
  let count = 0;
  const containers: Array<unknown> = [root];
  for (let value = containers.pop(); value !== undefined; value = containers.pop()) {
    if (typeof value !== "object" || value === null) continue;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) if (typeof value[i] === "object") containers.push(value[i]);
    } else {
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        count++;
        if (typeof record[key] === "object") containers.push(record[key]);
      }
    }
  }
  return count;
};

/** The first key written twice in one object of `text`, with its path; the walk `findDuplicateKey` runs on a body known to hold one. */
export const locateDuplicateKey = (text: string): LimitViolation | undefined => {
  // One entry per open container: its keys so far (undefined for an array), and where in it the scan is.
  const keySets: Array<Set<string> | undefined> = [];
  const positions: Array<string | number> = [];
  let expectingKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = closingQuote(text, i);
      const keys = keySets[keySets.length - 1];
      if (expectingKey && keys !== undefined) {
        const written = text.slice(i + 1, end);
        const key = written.includes("\\") ? (JSON.parse(text.slice(i, end + 1)) as string) : written;
        if (keys.has(key)) {
          const path = ["body", ...positions.slice(0, -1), key].join(".");
          return { path, message: `the key "${key}" appears more than once` };
        }
        keys.add(key);
        positions[positions.length - 1] = key;
        expectingKey = false;
      }
      i = end;
    } else if (c === 0x7b) {
      keySets.push(new Set());
      positions.push("");
      expectingKey = true;
    } else if (c === 0x5b) {
      keySets.push(undefined);
      positions.push(0);
      expectingKey = false;
    } else if (c === 0x7d || c === 0x5d) {
      keySets.pop();
      positions.pop();
    } else if (c === 0x2c) {
      if (keySets[keySets.length - 1] === undefined) positions[positions.length - 1] = (positions[positions.length - 1] as number) + 1;
      else expectingKey = true;
    }
  }
  return undefined;
};

/**
 * The first key that appears twice in one object of `text`, which must be
 * valid JSON and `parsed` its value, with its path: RFC 8259 4 leaves the
 * value of such a key to the parser (`JSON.parse` keeps the last, others the
 * first or refuse), so a proxy, a log or another service can read another
 * body than ours. Keys are compared as the text they stand for (`"a"` and
 * `"\u0061"` are one key). A body without one costs a count of its keys,
 * written and held (about 30 ms for a 9 MB snapshot); only a body with one
 * is walked again to name it.
 */
export const findDuplicateKey = (text: string, parsed: unknown): LimitViolation | undefined =>
  keysWritten(text) === keysHeld(parsed) ? undefined : locateDuplicateKey(text);

/** True when a key of `text`, valid JSON, is written with an escape: the keys V8's JSON.parse can misread. */
const hasEscapedKey = (text: string): boolean => {
  if (text.indexOf("\\") < 0) return false;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) !== 0x22) continue;
    const end = closingQuote(text, i);
    let next = end + 1;
    while (next < text.length && isJsonSpace(text.charCodeAt(next))) next++;
    if (text.charCodeAt(next) === 0x3a && text.slice(i, end).includes("\\")) return true;
    i = end;
  }
  return false;
};

const isJsonSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** Where the number, `true`, `false` or `null` starting at `start` ends. */
const endOfLiteral = (text: string, start: number): number => {
  let end = start;
  for (let c = text.charCodeAt(end); end < text.length && c !== 0x2c && c !== 0x5d && c !== 0x7d && !isJsonSpace(c); ) c = text.charCodeAt(++end);
  return end;
};

/**
 * Builds the value of `text`, valid JSON, without JSON.parse's object
 * building: strings and literals are read one by one, objects made with
 * `Object.fromEntries` (own properties, the last of a repeated key at the
 * place of its first, as JSON.parse does). Iterative, like the walks above.
 */
const parseKeyByKey = (text: string, onNumber?: NumberVisitor): unknown => {
  interface Open {
    readonly entries: Array<[string, unknown]> | undefined;
    readonly items: Array<unknown> | undefined;
    key: string;
    /** The numbers put in it, with their keys and texts, told to `onNumber` once it is built. */
    readonly numbers: Array<readonly [key: string, value: number, source: string]>;
  }
  const open: Array<Open> = [];
  let result: unknown;
  let expectingKey = false;
  const keyOfNext = (container: Open) => (container.items !== undefined ? String(container.items.length) : container.key);
  const put = (value: unknown) => {
    const container = open[open.length - 1];
    if (container === undefined) result = value;
    else if (container.items !== undefined) container.items.push(value);
    else container.entries?.push([container.key, value]);
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = closingQuote(text, i);
      const literal = text.slice(i, end + 1);
      const string = literal.includes("\\") ? (JSON.parse(literal) as string) : literal.slice(1, -1);
      const container = open[open.length - 1];
      if (expectingKey && container !== undefined) {
        container.key = string;
        expectingKey = false;
      } else put(string);
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      open.push({
        entries: c === 0x7b ? [] : undefined,
        items: c === 0x7b ? undefined : [],
        key: "",
        numbers: [],
      });
      expectingKey = c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) {
      const closed = open.pop();
      const built = closed?.items ?? Object.fromEntries(closed?.entries ?? []);
      if (onNumber !== undefined) for (const [key, value, source] of closed?.numbers ?? []) onNumber(built, key, value, source);
      put(built);
    } else if (c === 0x2c) {
      expectingKey = open[open.length - 1]?.entries !== undefined;
    } else if (c !== 0x3a && !isJsonSpace(c)) {
      const end = endOfLiteral(text, i);
      const source = text.slice(i, end);
      const value: unknown = JSON.parse(source);
      const container = open[open.length - 1];
      if (typeof value === "number" && container !== undefined) container.numbers.push([keyOfNext(container), value, source]);
      put(value);
      i = end - 1;
    }
  }
  return result;
};

/**
 * JSON.parse, but for a text with a key written with an escape, which it
 * builds key by key. V8's JSON.parse (Node 24 and 26: nodejs/node#63785,
 * open) can read such a key, an object's last, as a key it cached from an
 * earlier text whose raw key began alike, of the same decoded length: after
 * any body held `{"ref": …, "\\": …}`, a later `{"ref": …, "\u00e9": …}`
 * (how Python's json.dumps writes "é") came out with the key `\`, whoever
 * sent the first. Throws as JSON.parse does. A text without a backslash
 * costs one search for it; one with escaped keys, a second, slower read.
 */
export const parse = (text: string): unknown => {
  const value: unknown = JSON.parse(text);
  return hasEscapedKey(text) ? parseKeyByKey(text) : value;
};

/** Told of each number of a text: the object or array holding it, its key there, its value and its text. */
export type NumberVisitor = (holder: object, key: string, value: number, source: string) => void;

/**
 * `parse`, telling `onNumber` of every number held by an object or array, with
 * the text it was written as (JSON.parse's reviver `context.source`, or the
 * key-by-key read of a text with an escaped key, whose keys the reviver's
 * parse could misread). Throws as JSON.parse does.
 */
export const parseWithNumberSources = (text: string, onNumber: NumberVisitor): unknown => {
  if (hasEscapedKey(text)) {
    JSON.parse(text);
    return parseKeyByKey(text, onNumber);
  }
  return JSON.parse(text, function (this: object, key: string, value: unknown, context?: { source?: string }) {
    if (typeof value === "number" && context?.source !== undefined) onNumber(this, key, value, context.source);
    return value;
  });
};
