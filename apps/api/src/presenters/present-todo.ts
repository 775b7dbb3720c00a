/**
 * A todo's wire form: a debtor request or an AI detection of the review
 * queue (docs/decisions/0680), a dispute's attachment with a link to the
 * media route pre-signed for 1 hour (docs/decisions/0674).
 */
import type { Endpoints } from "@dc/contract";
import { presentTodoRow, type TodoRow } from "@dc/db";
import type { Context } from "koa";
import { publicBaseUrl } from "../http/public-base-url.ts";
import { mediaSigner } from "../media/signed-urls.ts";
import type { AppServices } from "../services.ts";

export type TodoView = Endpoints["listTodos"]["success"]["schema"]["Type"]["data"][number];

/** Builds the presenter of one request (one clock reading, one base URL for every row). */
export const todoPresenter = (services: AppServices, ctx: Context, companyId: number) => {
  const signer = mediaSigner(services.config.idEncryptionKey, services.ids);
  const baseUrl = publicBaseUrl(services, ctx);
  const now = services.clock.now();
  return (row: TodoRow): TodoView => {
    const { attachment, ...todo } = presentTodoRow(services.ids, row, (date) => date);
    if (attachment === null || row.source !== "debtor_request") return { ...todo, attachment: null };
    const link = signer.sign(baseUrl, { companyId, debtorRequestId: row.id, kind: "attachment" }, now);
    return {
      ...todo,
      attachment: { ...attachment, url: link.url, url_expires_at: link.expiresAt },
    };
  };
};
