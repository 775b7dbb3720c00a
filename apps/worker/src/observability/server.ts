/**
 * The worker's small HTTP server for operators (`WORKER_METRICS_PORT`):
 * `GET /metrics` in the Prometheus text format and `GET /healthz` for
 * liveness. Anything else is 404. It serves no integrator traffic.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import type { Registry } from "prom-client";

export interface MetricsServerOptions {
  readonly registry: Registry;
  /** 0 picks a free port (tests). */
  readonly port: number;
  readonly logger: Logger;
}

export interface MetricsServer {
  /** The port listened on. */
  readonly port: number;
  /** Stops listening and ends idle keep-alive connections; resolves once the server is closed. */
  readonly close: () => Promise<void>;
}

const send = (response: ServerResponse, status: number, contentType: string, body: string): void => {
  response.writeHead(status, { "content-type": contentType, "cache-control": "no-store" }).end(body);
};

const handle = async (
  { registry, logger }: MetricsServerOptions,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> => {
  const path = new URL(request.url ?? "/", "http://worker").pathname;
  if (request.method === "GET" && path === "/metrics") {
    try {
      send(response, 200, registry.contentType, await registry.metrics());
    } catch (error) {
      logger.error({ err: error }, "metrics could not be collected");
      send(response, 500, "text/plain; charset=utf-8", "metrics unavailable\n");
    }
  } else if (request.method === "GET" && path === "/healthz") {
    send(response, 200, "application/json", JSON.stringify({ status: "ok" }));
  } else {
    send(response, 404, "text/plain; charset=utf-8", "not found\n");
  }
};

/**
 * Listens on `port` (all interfaces). Rejects when the port cannot be
 * bound, so a worker started with a port in use fails at start-up.
 *
 * @example
 * const server = await startMetricsServer({ registry: metrics.registry, port: 9464, logger });
 * // on shutdown
 * await server.close();
 */
export const startMetricsServer = async (options: MetricsServerOptions): Promise<MetricsServer> => {
  const server = createServer((request, response) => void handle(options, request, response));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeIdleConnections();
      }),
  };
};
