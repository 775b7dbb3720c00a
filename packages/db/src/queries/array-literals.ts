/**
 * PostgreSQL array literals for set-based statements: each column of a row
 * set travels as one text parameter (`{1,2,NULL}`), cast to its array type
 * and zipped back into rows with `unnest($1::int8[], $2::text[], ...)`.
 * PostgreSQL reads array literals several times faster than it parses the
 * same rows from JSON with `json_to_recordset`, and building them here costs less than
 * node-postgres's generic array serialisation, which prepares every element.
 */

/** `{1,2,NULL}` for an `int8[]` (or `int4[]`) parameter. Throws on a value that is not a safe integer. */
export const integerArray = (values: ReadonlyArray<number | null>): string => {
  let literal = "{";
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (i > 0) literal += ",";
    if (value === null || value === undefined) {
      literal += "NULL";
    } else if (Number.isSafeInteger(value)) {
      literal += String(value);
    } else {
      throw new RangeError(`not an integer: ${String(value)}`);
    }
  }
  return `${literal}}`;
};

const needsEscape = /["\\]/g;

/**
 * `{"a","b \"quoted\"",NULL}` for a `text[]` parameter (or any type read
 * from text: `date[]`, `timestamptz[]`). Every element is quoted, so
 * commas, braces, spaces and the word NULL stay text.
 */
export const textArray = (values: ReadonlyArray<string | null>): string => {
  let literal = "{";
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (i > 0) literal += ",";
    if (value === null || value === undefined) literal += "NULL";
    else if (value.includes('"') || value.includes("\\")) literal += `"${value.replace(needsEscape, "\\$&")}"`;
    else literal += `"${value}"`;
  }
  return `${literal}}`;
};
