/**
 * Fast path: replaces `JSON.stringify(Schema.encodeUnknownSync(schema)(value))`
 * for every reply, kept for page-1 throughput (docs/benchmarks.md, "Second
 * implementations: A/B"). Held equal to the library path by
 * apps/api/test/encode-reply.test.ts (fast-check, every operation).
 *
 * The encoder of a success schema, compiled once per operation from the
 * schema's AST (docs/decisions/0014): it keeps exactly the declared
 * properties of every object (an extra field of a row never reaches the
 * wire), applies each field's wire format (dates), and passes primitives
 * through without re-checking them. Where the AST holds something it does
 * not specialise (index signatures, unions of objects, effectful
 * transformations), that subtree is encoded by Effect itself, so the output
 * is always Effect's. A property test holds the two equal for every
 * operation of the contract.
 *
 * The router writes replies with `compileReplySerializer`, built the same way:
 * the JSON text of that wire form, produced while walking the value instead
 * of after building it (held equal to `JSON.stringify` of Effect's encoding).
 */
import { Either, ParseResult, Schema, SchemaAST as AST } from "effect";

type Encode = (value: unknown) => unknown;

const identity: Encode = (value) => value;

/** Effect's own encoder of the node, built on first use (most are only fallbacks for values of the wrong type). */
const byEffect = (ast: AST.AST): Encode => {
  let encode: Encode | undefined;
  return (value) => (encode ??= ParseResult.encodeUnknownSync(Schema.make(ast)) as Encode)(value);
};

/** Whether the node's encoded form is the value itself (no transformation below, no object to trim). */
const isPlain = (ast: AST.AST): boolean => {
  switch (ast._tag) {
    case "Literal":
    case "UniqueSymbol":
    case "UndefinedKeyword":
    case "VoidKeyword":
    case "NeverKeyword":
    case "StringKeyword":
    case "NumberKeyword":
    case "BooleanKeyword":
    case "BigIntKeyword":
    case "SymbolKeyword":
    case "Enums":
    case "TemplateLiteral":
      return true;
    case "Refinement":
      return isPlain(ast.from);
    case "Union":
      return ast.types.every(isPlain);
    default:
      return false;
  }
};

/** `Record<string, unknown>` (free-form metadata): its own string keys, copied as Effect copies them. */
const isFreeRecord = (ast: AST.TypeLiteral): boolean =>
  ast.propertySignatures.length === 0 &&
  ast.indexSignatures.length > 0 &&
  ast.indexSignatures.every(
    (signature) =>
      signature.parameter._tag === "StringKeyword" &&
      (signature.type._tag === "UnknownKeyword" || signature.type._tag === "AnyKeyword"),
  );

const compile = (ast: AST.AST): Encode => {
  if (isPlain(ast)) return identity;
  switch (ast._tag) {
    // The value was produced by a typed handler: refinements are not re-checked here (the tests check every reply against the document).
    case "Refinement":
      return compile(ast.from);
    case "Suspend": {
      let inner: Encode | undefined;
      return (value) => (inner ??= compile(ast.f()))(value);
    }
    case "TypeLiteral":
      if (isFreeRecord(ast)) return copyRecord(ast);
      return ast.indexSignatures.length > 0 ? byEffect(ast) : compileObject(ast);
    case "TupleType":
      return compileArray(ast);
    case "Union":
      return compileUnion(ast);
    case "Transformation":
      return compileTransformation(ast);
    // A declaration without type parameters (a Date) encodes to itself.
    case "Declaration":
      return ast.typeParameters.length === 0 ? identity : byEffect(ast);
    default:
      return byEffect(ast);
  }
};

const copyRecord = (ast: AST.TypeLiteral): Encode => {
  const fallback = byEffect(ast);
  return (value) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return fallback(value);
    const output: Record<string, unknown> = {};
    for (const key of Object.keys(value)) output[key] = (value as Record<string, unknown>)[key];
    return output;
  };
};

const compileObject = (ast: AST.TypeLiteral): Encode => {
  const properties = ast.propertySignatures.map((property) => ({
    name: property.name,
    encode: compile(property.type),
  }));
  const fallback = byEffect(ast);
  return (value) => {
    if (typeof value !== "object" || value === null) return fallback(value);
    const input = value as Record<PropertyKey, unknown>;
    const output: Record<PropertyKey, unknown> = {};
    for (const { name, encode } of properties) {
      if (Object.hasOwn(input, name)) output[name] = encode(input[name]);
    }
    return output;
  };
};

const compileArray = (ast: AST.TupleType): Encode => {
  // Only homogeneous arrays (`Schema.Array`) are specialised; tuples go to Effect.
  if (ast.elements.length > 0 || ast.rest.length !== 1) return byEffect(ast);
  const element = compile(ast.rest[0]!.type);
  const fallback = byEffect(ast);
  if (element === identity) return (value) => (Array.isArray(value) ? value : fallback(value));
  return (value) => (Array.isArray(value) ? value.map((item) => element(item)) : fallback(value));
};

const compileUnion = (ast: AST.Union): Encode => {
  // `X | null` is the common case: null passes, anything else is X's.
  const nonNull = ast.types.filter((member) => !(AST.isLiteral(member) && member.literal === null));
  if (nonNull.length === 1 && nonNull.length < ast.types.length) {
    const encode = compile(nonNull[0]!);
    return (value) => (value === null ? null : encode(value));
  }
  return byEffect(ast);
};

const compileTransformation = (ast: AST.Transformation): Encode => {
  const transformation = ast.transformation;
  if (!AST.isFinalTransformation(transformation)) return byEffect(ast);
  const to = compile(ast.to);
  const from = compile(ast.from);
  const fallback = byEffect(ast);
  return (value) => {
    // Wire formats (dates) encode purely: an Either. Anything effectful, or a failure, goes to Effect.
    const result: unknown = transformation.encode(to(value), AST.defaultParseOption, ast, value);
    return Either.isEither(result) && Either.isRight(result) ? from(result.right) : fallback(value);
  };
};

/** The encoder of `schema`'s type side to its wire form. */
export const compileReplyEncoder = <A, I>(schema: Schema.Schema<A, I>): ((value: unknown) => unknown) => compile(schema.ast);

/**
 * A node's JSON text, or `undefined` where `JSON.stringify` leaves a value
 * out (an object property) or writes `null` (an array element).
 */
export type Serialize = (value: unknown) => string | undefined;

/** Integer-like keys come first in a JavaScript object's own order, whatever the schema's order. */
const INTEGER_LIKE = /^(0|[1-9][0-9]*)$/;

/** `JSON.stringify` of the node's encoded form, for the nodes not written directly. */
const serializeEncoded = (ast: AST.AST): Serialize => {
  const encode = compile(ast);
  return (value) => JSON.stringify(encode(value)) as string | undefined;
};

/** `JSON.stringify` of any value: what every specialised writer falls back to. */
const stringify: Serialize = (value) => JSON.stringify(value) as string | undefined;

/** The most frequent leaves, written without a generic `JSON.stringify` call where the type allows. */
const serializeLeaf = (ast: AST.AST): Serialize => {
  switch (ast._tag) {
    case "NumberKeyword":
      // String() and JSON.stringify agree on every finite number (-0 included); JSON writes the others as null.
      return (value) => (typeof value === "number" ? (Number.isFinite(value) ? String(value) : "null") : stringify(value));
    case "BooleanKeyword":
      return (value) => (value === true ? "true" : value === false ? "false" : stringify(value));
    case "Literal": {
      const literal = ast.literal;
      if (typeof literal === "bigint") return stringify; // JSON has no bigint: it throws, as for the reference.
      const text = JSON.stringify(literal) as string | undefined;
      return (value) => (value === literal ? text : stringify(value));
    }
    default:
      return stringify;
  }
};

const compileSerializer = (ast: AST.AST): Serialize => {
  if (isPlain(ast)) return serializeLeaf(ast);
  switch (ast._tag) {
    case "Refinement":
      return compileSerializer(ast.from);
    case "Suspend": {
      let inner: Serialize | undefined;
      return (value) => (inner ??= compileSerializer(ast.f()))(value);
    }
    case "TypeLiteral":
      return ast.indexSignatures.length === 0 ? serializeObject(ast) : serializeEncoded(ast);
    case "TupleType":
      return serializeArray(ast);
    case "Union":
      return serializeUnion(ast);
    default:
      return serializeEncoded(ast);
  }
};

const serializeObject = (ast: AST.TypeLiteral): Serialize => {
  const names = ast.propertySignatures.map((property) => property.name);
  if (names.some((name) => typeof name !== "string" || INTEGER_LIKE.test(name))) return serializeEncoded(ast);
  const properties = ast.propertySignatures.map((property) => ({
    name: property.name as string,
    prefix: `${JSON.stringify(property.name)}:`,
    serialize: compileSerializer(property.type),
  }));
  const fallback = serializeEncoded(ast);
  return (value) => {
    if (typeof value !== "object" || value === null) return fallback(value);
    const input = value as Record<string, unknown>;
    let text = "";
    for (const { name, prefix, serialize } of properties) {
      if (!Object.hasOwn(input, name)) continue;
      const member = serialize(input[name]);
      if (member === undefined) continue;
      text += text === "" ? `{${prefix}${member}` : `,${prefix}${member}`;
    }
    return text === "" ? "{}" : `${text}}`;
  };
};

const serializeArray = (ast: AST.TupleType): Serialize => {
  if (ast.elements.length > 0 || ast.rest.length !== 1) return serializeEncoded(ast);
  const element = compileSerializer(ast.rest[0]!.type);
  const fallback = serializeEncoded(ast);
  return (value) => {
    if (!Array.isArray(value)) return fallback(value);
    let text = "[";
    for (let i = 0; i < value.length; i++) text += (i === 0 ? "" : ",") + (element(value[i]) ?? "null");
    return `${text}]`;
  };
};

const serializeUnion = (ast: AST.Union): Serialize => {
  const nonNull = ast.types.filter((member) => !(AST.isLiteral(member) && member.literal === null));
  if (nonNull.length === 1 && nonNull.length < ast.types.length) {
    const serialize = compileSerializer(nonNull[0]!);
    return (value) => (value === null ? "null" : serialize(value));
  }
  return serializeEncoded(ast);
};

/**
 * The JSON text of `schema`'s wire form, written as the value is walked:
 * exactly `JSON.stringify(compileReplyEncoder(schema)(value))`, without
 * building the encoded copy first (docs/decisions/0014).
 */
export const compileReplySerializer = <A, I>(schema: Schema.Schema<A, I>): Serialize => compileSerializer(schema.ast);
