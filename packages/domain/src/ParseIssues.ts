/**
 * The issues of an Effect Schema parse error in the words a refusal gives an
 * integrator, for the `details` of a 400 and the reason of a snapshot row.
 * Effect's own wording for a value of the wrong type is "Expected <the
 * schema>, actual <the value>": `Expected CreateDebtBody, actual [1]`, or
 * `Expected undefined, actual {...}` for an optional field, with the value
 * sent back whole. Here it is what the field must be (`must be a string`,
 * `must be a string or null`, `must be a JSON object`), and never the value.
 * Messages the schemas set themselves are kept as they are.
 */
import { ParseResult, SchemaAST as AST } from "effect";

/** One issue: its kind (`Type`, `Missing`, `Unexpected`, ...), where it is, and what is wrong. */
export interface Issue {
  readonly _tag: ParseResult.ArrayFormatterIssue["_tag"];
  readonly path: ReadonlyArray<PropertyKey>;
  readonly message: string;
}

/** What a value of `ast` is, as "must be ..." finishes it; `absent` for the undefined of an optional field. */
const kindOf = (ast: AST.AST): string => {
  switch (ast._tag) {
    case "StringKeyword":
    case "TemplateLiteral":
      return "a string";
    case "NumberKeyword":
      return "a number";
    case "BooleanKeyword":
      return "a boolean";
    case "TypeLiteral":
      return "a JSON object";
    case "TupleType":
      return "an array";
    case "UndefinedKeyword":
    case "VoidKeyword":
      return "absent";
    case "Literal":
      return ast.literal === null
        ? "null"
        : JSON.stringify(typeof ast.literal === "bigint" ? String(ast.literal) : ast.literal);
    case "Enums":
      return ast.enums.map(([, value]) => JSON.stringify(value)).join(" or ");
    case "Union":
      return joinKinds(ast.types.map(kindOf));
    case "Refinement": {
      const description = AST.getDescriptionAnnotation(ast);
      return description._tag === "Some" && /^an? /.test(description.value) ? description.value : kindOf(ast.from);
    }
    case "Transformation":
      return kindOf(ast.from);
    case "Suspend":
      return kindOf(ast.f());
    default:
      return "a value of another type";
  }
};

/** "a string or null" from ["a string", "null", "absent"]: absence goes without saying. */
const joinKinds = (kinds: ReadonlyArray<string>): string => {
  const present = [...new Set(kinds.filter((kind) => kind !== "absent"))];
  return present.length === 0 ? "absent" : present.join(" or ");
};

/** Every Type issue of the tree with the path the array formatter gives it. */
const typeLeaves = (
  issue: ParseResult.ParseIssue,
  path: ReadonlyArray<PropertyKey>,
  into: Array<{ readonly path: ReadonlyArray<PropertyKey>; readonly ast: AST.AST }>,
): typeof into => {
  switch (issue._tag) {
    case "Type":
      into.push({ path, ast: issue.ast });
      break;
    case "Pointer":
      typeLeaves(issue.issue, path.concat(issue.path), into);
      break;
    case "Composite":
      for (const inner of Array.isArray(issue.issues) ? issue.issues : [issue.issues]) typeLeaves(inner, path, into);
      break;
    case "Refinement":
    case "Transformation":
      typeLeaves(issue.issue, path, into);
      break;
  }
  return into;
};

const pathKey = (path: ReadonlyArray<PropertyKey>): string => path.map(String).join("\u0000");

/** True when `message` is Effect's default for a value of the wrong type. */
const isDefaultTypeMessage = (message: string): boolean =>
  message.startsWith("Expected ") && message.includes(", actual ");

/**
 * The issues of `error`, as Effect's array formatter lists them, with every
 * default wrong-type message rewritten: the alternatives of one union at one
 * place become one message (`must be a string or null`), and the absent
 * alternative of an optional field is dropped where the field has another
 * issue at or below it.
 */
export const plainIssues = (error: ParseResult.ParseError): ReadonlyArray<Issue> => {
  const formatted = ParseResult.ArrayFormatter.formatErrorSync(error);
  const kindsAt = new Map<string, Array<string>>();
  for (const leaf of typeLeaves(error.issue, [], [])) {
    const key = pathKey(leaf.path);
    const kinds = kindsAt.get(key);
    if (kinds === undefined) kindsAt.set(key, [kindOf(leaf.ast)]);
    else kinds.push(kindOf(leaf.ast));
  }
  // One pass over the issues, so that a body with many (an array of 100,000 wrong items) costs linear time:
  // where the schema wrote its own message, and which places have an issue below them.
  const ownMessageAt = new Set<string>();
  const issueBelow = new Set<string>();
  for (const issue of formatted) {
    if (!isDefaultTypeMessage(issue.message)) ownMessageAt.add(pathKey(issue.path));
    for (let length = 0; length < issue.path.length; length++) issueBelow.add(pathKey(issue.path.slice(0, length)));
  }
  const written = new Set<string>();
  const issues: Array<Issue> = [];
  for (const issue of formatted) {
    if (!isDefaultTypeMessage(issue.message)) {
      issues.push(issue);
      continue;
    }
    const key = pathKey(issue.path);
    if (written.has(key)) continue;
    written.add(key);
    const kind = joinKinds(kindsAt.get(key) ?? []);
    // The field's own message says it better; an absent alternative is no news beside the field's other issues.
    if (ownMessageAt.has(key) || (kind === "absent" && issueBelow.has(key))) continue;
    issues.push({
      _tag: issue._tag,
      path: issue.path,
      message: kind === "absent" ? "must be absent" : `must be ${kind}`,
    });
  }
  return issues;
};
