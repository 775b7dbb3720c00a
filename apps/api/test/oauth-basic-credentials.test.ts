/**
 * HTTP Basic client credentials (RFC 6749 2.3.1): the client id and secret
 * are each encoded with application/x-www-form-urlencoded before Basic, so
 * the server decodes them the same way: `%XX` escapes, and `+` for a space.
 * The api's ids and secrets are base64url, which that encoding leaves as
 * they are, so this is about the decoder itself.
 */
import { describe, expect, it } from "vitest";
import { presentedCredentials } from "../src/oauth/client-authentication.ts";

const basic = (userPass: string) => `Basic ${Buffer.from(userPass, "utf8").toString("base64")}`;

describe("HTTP Basic client credentials", () => {
  it("form-urldecodes the id and the secret", () => {
    expect(presentedCredentials(basic("my+client%3Aid:s%2Bcret+with+spaces%25"), {})).toEqual({
      clientId: "my client:id",
      clientSecret: "s+cret with spaces%",
      method: "basic",
    });
    expect(presentedCredentials(basic("dcc_abc-_:dcs_XYZ-_09"), {})).toEqual({
      clientId: "dcc_abc-_",
      clientSecret: "dcs_XYZ-_09",
      method: "basic",
    });
  });
});
