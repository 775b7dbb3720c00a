/**
 * Reads a debtor page post (docs/decisions/0674): an urlencoded form, or a
 * `multipart/form-data` one with at most one file, the dispute's
 * `attachment`. Multipart is parsed as it streams (busboy) under hard limits:
 * one file of at most `DisputeAttachment.maxBytes`, a bounded number of parts
 * and field sizes, and a whole post of at most `DEBTOR_PAGE_MULTIPART_BYTES`,
 * past which reading stops. A file over a limit is not kept: the form keeps
 * the fields read so far and says what was wrong, so the page can name the
 * field in the debtor's language.
 */
import type { IncomingMessage } from "node:http";
import {
  DEBTOR_PAGE_FORM_BYTES,
  DEBTOR_PAGE_MULTIPART_BYTES,
  DEBTOR_PAGE_MULTIPART_PARTS,
} from "@dc/contract";
import { DisputeAttachment } from "@dc/domain";
import { Busboy } from "@fastify/busboy";
import type { Context } from "koa";
import { PayloadTooLarge, ValidationFailed } from "../http/api-error.ts";
import { mediaType, parseForm, readRawBody } from "../http/read-body.ts";

/** What was wrong with the files of a post: too large, not an allowed type, or more than one. */
export type AttachmentProblem = "too_large" | "type" | "count";

export interface Attachment {
  readonly name: string;
  readonly contentType: DisputeAttachment.Type;
  readonly body: Buffer;
}

export interface PageForm {
  readonly fields: Record<string, string>;
  /** The file, its type told by its content; absent when none was chosen or it was refused. */
  readonly attachment?: Attachment;
  readonly problem?: AttachmentProblem;
  /** Reading stopped before the end of the post: the connection is closed after the answer. */
  readonly unread?: true;
}

const ATTACHMENT_FIELD = "attachment";

/** The post's form, or undefined when it is no form the page reads (wrong media type, malformed, cut short). */
export const readPageForm = async (ctx: Context): Promise<PageForm | undefined> => {
  const type = mediaType(ctx.get("content-type"));
  if (type === "multipart/form-data") return readMultipart(ctx.req);
  if (type !== "application/x-www-form-urlencoded") return undefined;
  try {
    return { fields: parseForm(await readRawBody(ctx.req, DEBTOR_PAGE_FORM_BYTES)).fields };
  } catch (error) {
    if (error instanceof PayloadTooLarge || error instanceof ValidationFailed) return undefined;
    throw error;
  }
};

const readMultipart = (request: IncomingMessage): Promise<PageForm | undefined> =>
  new Promise((resolve) => {
    const fields: Record<string, string> = {};
    let attachment: Attachment | undefined;
    let problem: AttachmentProblem | undefined;
    let settled = false;
    const settle = (form: PageForm | undefined) => {
      if (settled) return;
      settled = true;
      resolve(form);
    };
    const refuse = (found: AttachmentProblem) => {
      // A size or count problem says more than a type one: the debtor fixes it first.
      if (problem === undefined || problem === "type") problem = found;
    };
    const result = (): PageForm => ({
      fields,
      ...(attachment === undefined || problem !== undefined ? {} : { attachment }),
      ...(problem === undefined ? {} : { problem }),
    });

    let parser: ReturnType<typeof Busboy>;
    try {
      parser = Busboy({
        headers: request.headers as Parameters<typeof Busboy>[0]["headers"],
        limits: {
          fieldNameSize: 100,
          fieldSize: DEBTOR_PAGE_FORM_BYTES,
          fields: DEBTOR_PAGE_MULTIPART_PARTS,
          files: 1,
          parts: DEBTOR_PAGE_MULTIPART_PARTS,
          fileSize: DisputeAttachment.maxBytes,
          headerPairs: 8,
        },
      });
    } catch {
      // No boundary, or a Content-Type busboy cannot read.
      return settle(undefined);
    }
    parser.on("field", (name, value) => {
      if (value !== "" && !Object.hasOwn(fields, name)) fields[name] = value;
    });
    parser.on("file", (name, stream, fileName, _encoding, _declaredType) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("limit", () => refuse("too_large"));
      stream.on("end", () => {
        const body = Buffer.concat(chunks);
        // A file input left empty posts an empty part without a name: no attachment.
        if (body.length === 0 && (fileName ?? "") === "") return;
        if (name !== ATTACHMENT_FIELD || attachment !== undefined) return refuse("count");
        if (stream.truncated) return refuse("too_large");
        // The content says what the file is; the declared type and the name's extension are not trusted.
        const contentType = DisputeAttachment.typeOf(body);
        if (contentType === undefined) return refuse("type");
        attachment = { name: DisputeAttachment.nameOf(fileName, contentType), contentType, body };
      });
    });
    parser.on("filesLimit", () => refuse("count"));
    parser.on("partsLimit", () => settle(undefined));
    parser.on("fieldsLimit", () => settle(undefined));
    parser.on("error", () => settle(undefined));
    parser.on("finish", () => settle(result()));

    let received = 0;
    request.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (received <= DEBTOR_PAGE_MULTIPART_BYTES || settled) return;
      // Past the post's limit: stop reading, keep the fields that came before the file.
      request.unpipe(parser);
      request.pause();
      refuse("too_large");
      settle({ ...result(), unread: true });
    });
    request.on("close", () => {
      if (!request.complete) settle(undefined);
    });
    request.on("error", () => settle(undefined));
    request.pipe(parser);
  });
