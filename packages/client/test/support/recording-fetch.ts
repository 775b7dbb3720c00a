/**
 * A fetch that records what the client sends and can be told to fail or
 * rewrite chosen requests, so tests see the client's behaviour on the wire.
 */
export interface SentRequest {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | null;
  readonly prefer: string | null;
  readonly idempotencyKey: string | null;
  readonly body: string;
}

export type Interceptor = (
  request: Request,
  sent: ReadonlyArray<SentRequest>,
) => Promise<Response | undefined> | Response | undefined;

export const recordingFetch = (intercept?: Interceptor) => {
  const sent: SentRequest[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    const body = request.body === null ? "" : await request.clone().text();
    sent.push({
      method: request.method,
      path: new URL(request.url).pathname,
      authorization: request.headers.get("authorization"),
      prefer: request.headers.get("prefer"),
      idempotencyKey: request.headers.get("idempotency-key"),
      body,
    });
    const replaced = await intercept?.(request, sent);
    return replaced ?? globalThis.fetch(request);
  };
  const count = (method: string, path: string | RegExp) =>
    sent.filter(
      (request) =>
        request.method === method && (typeof path === "string" ? request.path === path : path.test(request.path)),
    ).length;
  return { fetch, sent, count };
};
