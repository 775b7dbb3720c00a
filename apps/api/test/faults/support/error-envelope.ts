/**
 * Validates a body against the OpenAPI document's `ErrorEnvelope` schema.
 * The fault tests' load generator keeps each answer's body, not the
 * `Response` that `expectContract` reads, so they check the bodies of their
 * 503s against the envelope component itself.
 */
import { openApiDocument } from "@dc/contract/document";
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
ajv.addSchema(openApiDocument() as object, "openapi.json");
const validate = ajv.compile({ $ref: "openapi.json#/components/schemas/ErrorEnvelope" });

/** The schema violations of `body` as an error envelope; empty when it conforms. */
export const errorEnvelopeProblems = (body: unknown): ReadonlyArray<ErrorObject> =>
  validate(body) ? [] : [...(validate.errors ?? [])];
