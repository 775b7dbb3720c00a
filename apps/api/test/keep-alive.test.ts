/**
 * Idle kept-alive connections (docs/operations.md, Load balancers): the api
 * keeps one open for HTTP_KEEP_ALIVE_TIMEOUT_MS after its last response, so
 * a load balancer that reuses connections for up to its own idle timeout
 * (60 s for the common ones) never sends a request on a connection the api
 * has just closed, which would come back to its client as a 502. Node's
 * headersTimeout (20 s here) applies to a request once its first byte has
 * arrived, not to an idle connection between requests.
 */
import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { startTestApi } from "./support/harness.ts";

const t = await startTestApi();

/** A raw connection to `url` collecting what the server sends and when it closes the connection. */
const openConnection = async (url: string) => {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  let received = "";
  socket.setEncoding("utf8").on("data", (chunk: string) => (received += chunk));
  const closedByServer = new Promise<void>((resolve) => socket.once("end", resolve));
  // A status line follows the previous body on the same line: bodies do not end with a newline.
  const responses = () => received.match(/HTTP\/1\.1 \d{3}/g) ?? [];
  const request = async () => {
    const before = responses().length;
    socket.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
    for (let waited = 0; responses().length === before; waited += 10) {
      if (waited > 10_000) throw new Error(`no response on the kept-alive connection:\n${received}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return responses().at(-1);
  };
  return { socket, request, closedByServer };
};

describe("kept-alive connections", () => {
  it("are kept 65 s by default", () => {
    expect(t.api.server.keepAliveTimeout).toBe(65_000);
  });

  it("serve requests after an idle pause, and are closed by the api once idle for HTTP_KEEP_ALIVE_TIMEOUT_MS", async () => {
    const api = await t.startAnotherApi({ environment: { HTTP_KEEP_ALIVE_TIMEOUT_MS: "3000" } });
    try {
      expect(api.server.keepAliveTimeout).toBe(3_000);
      const connection = await openConnection(api.url);
      expect(await connection.request()).toBe("HTTP/1.1 200");
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await connection.request()).toBe("HTTP/1.1 200");
      // The server, not the client, ends the idle connection.
      await connection.closedByServer;
      connection.socket.destroy();
    } finally {
      await api.stop();
    }
  }, 20_000);
});
