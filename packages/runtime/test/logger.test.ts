/** The one logger of the api and the worker: credentials censored in both, each line naming its service. */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, type Service } from "../src/logger.ts";

const linesOf = (service: Service, write: (logger: ReturnType<typeof createLogger>) => void): Array<Record<string, unknown>> => {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString("utf8")) as Record<string, unknown>);
      done();
    },
  });
  write(createLogger(service, "info", sink));
  return lines;
};

describe("createLogger", () => {
  it.each<Service>(["api", "worker"])("censors credentials in the %s's lines", (service) => {
    const [line] = linesOf(service, (logger) =>
      logger.info(
        {
          headers: { authorization: "Bearer dcat_secret" },
          client_secret: "dcs_secret",
          body: { access_token: "dcat_a", refresh_token: "dcrt_b", password: "hunter2" },
        },
        "request",
      ),
    );
    expect(line).toMatchObject({
      service,
      level: 30,
      msg: "request",
      headers: { authorization: "[redacted]" },
      client_secret: "[redacted]",
      body: { access_token: "[redacted]", refresh_token: "[redacted]", password: "[redacted]" },
    });
    expect(typeof line?.["time"]).toBe("string");
  });

  it("censors a top-level code in the api (an authorization code) but not in the worker (a failure code)", () => {
    expect(linesOf("api", (logger) => logger.info({ code: "oauth-code" }, "x"))[0]).toMatchObject({ code: "[redacted]" });
    expect(linesOf("worker", (logger) => logger.info({ code: "processing_error" }, "x"))[0]).toMatchObject({
      code: "processing_error",
    });
  });
});
