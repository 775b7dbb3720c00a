/**
 * What the tenant-isolation sweep reads from the committed OpenAPI document:
 * every operation with a path parameter (each carries an id or a reference
 * of some company), the tenant-wide reads without one, and the answer the
 * document prescribes when a parameter names another company's resource.
 */
import { errorCases } from "@dc/contract";
import { openApiDocument } from "@dc/contract/document";

interface Parameter {
  readonly name: string;
  readonly in: string;
}
interface Example {
  readonly summary?: string;
  readonly value: { readonly message: string; readonly code: number };
}
interface Response {
  readonly content?: Record<
    string,
    { readonly schema?: { readonly $ref?: string }; readonly examples?: Record<string, Example> }
  >;
}
interface Operation {
  readonly operationId: string;
  readonly security?: ReadonlyArray<Record<string, ReadonlyArray<string>>>;
  readonly parameters?: ReadonlyArray<Parameter>;
  readonly requestBody?: { readonly required?: boolean; readonly content: Record<string, unknown> };
  readonly responses: Record<string, Response>;
}
interface Document {
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: { readonly schemas: Record<string, { readonly properties?: Record<string, unknown> }> };
}

const document = openApiDocument() as unknown as Document;

export interface DocumentedOperation {
  readonly operationId: string;
  /** Lower case, as the document and `expectContract` spell it. */
  readonly method: string;
  /** The path template, e.g. `/external-api/v1/debts/{id}`. */
  readonly path: string;
  readonly pathParameters: ReadonlyArray<string>;
  readonly queryParameters: ReadonlyArray<string>;
  readonly hasBody: boolean;
  readonly bearer: boolean;
  readonly successStatuses: ReadonlyArray<number>;
  readonly operation: Operation;
}

const all: ReadonlyArray<DocumentedOperation> = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => {
    const parameters = operation.parameters ?? [];
    return {
      operationId: operation.operationId,
      method,
      path,
      pathParameters: parameters.filter((parameter) => parameter.in === "path").map((parameter) => parameter.name),
      queryParameters: parameters.filter((parameter) => parameter.in === "query").map((parameter) => parameter.name),
      hasBody: operation.requestBody !== undefined,
      bearer: (operation.security ?? []).some((requirement) => "oauth2" in requirement),
      successStatuses: Object.keys(operation.responses)
        .map(Number)
        .filter((status) => status >= 200 && status < 400),
      operation,
    };
  }),
);

/** Every operation of the document. */
export const documentedOperations = (): ReadonlyArray<DocumentedOperation> => all;

/**
 * Whether the operation answers JSON: some response of the document is
 * `application/json`. The pages that answer browsers and mail clients
 * (HTML, images, redirects) declare none.
 */
export const answersJson = (entry: DocumentedOperation): boolean =>
  Object.values(entry.operation.responses).some((response) => response.content?.["application/json"] !== undefined);

/** Every operation with at least one path parameter: the sweep's subjects. */
export const idBearingOperations = (): ReadonlyArray<DocumentedOperation> =>
  all.filter((entry) => entry.pathParameters.length > 0);

/** Bearer-protected GETs without a path parameter: tenant-wide reads (lists, profile, statistics...). */
export const tenantWideReads = (): ReadonlyArray<DocumentedOperation> =>
  all.filter((entry) => entry.method === "get" && entry.bearer && entry.pathParameters.length === 0);

/** Whether the operation's 200 body is a paginated list (`data` + `pagination`). */
export const isPaginatedList = (entry: DocumentedOperation): boolean => {
  const reference = entry.operation.responses["200"]?.content?.["application/json"]?.schema?.$ref;
  const schema = reference === undefined ? undefined : document.components.schemas[reference.split("/").at(-1)!];
  return schema?.properties?.["pagination"] !== undefined;
};

/**
 * The fixture a path parameter needs. `id` is ambiguous, so it is qualified
 * by the path segment before it (`debts/{id}`, `endpoints/{id}`); every
 * other name (`debtId`, `apiReference`...) names its kind on its own.
 */
export const parameterKind = (path: string, name: string): string => {
  if (name !== "id") return name;
  const segments = path.split("/");
  const index = segments.indexOf(`{${name}}`);
  return `${segments[index - 1]}/{id}`;
};

export interface ForeignOutcome {
  readonly status: number;
  readonly message: string;
}

/** The summary the contract gives the 404 of an unknown id or one of another company. */
const FOREIGN_ID_SUMMARY = errorCases.notFound("").description;

/**
 * The documented answer to another company's id: the error example the
 * document files under "Unknown id, or an id of another company", or
 * undefined when the operation documents none (the sweep then needs an
 * explicit, justified exception).
 */
export const documentedForeignOutcome = (entry: DocumentedOperation): ForeignOutcome | undefined => {
  const matches = Object.entries(entry.operation.responses).flatMap(([status, response]) =>
    Object.values(response.content?.["application/json"]?.examples ?? {})
      .filter((example) => example.summary === FOREIGN_ID_SUMMARY)
      .map((example) => ({ status: Number(status), message: example.value.message })),
  );
  if (matches.length > 1) throw new Error(`${entry.operationId} documents ${matches.length} answers to a foreign id`);
  return matches[0];
};

/** The documented error example of `status` with `message`, if any (for the explicit exceptions). */
export const documentsError = (entry: DocumentedOperation, status: number, message: string): boolean =>
  Object.values(entry.operation.responses[String(status)]?.content?.["application/json"]?.examples ?? {}).some(
    (example) => example.value.message === message && example.value.code === status,
  );

/** `path` with each `{name}` replaced by its URL-encoded value. */
export const fillPath = (path: string, values: Readonly<Record<string, string>>): string =>
  path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for {${name}} in ${path}`);
    return encodeURIComponent(value);
  });
