import { Either, Schema } from "effect";
import { describe, expect, it } from "vitest";
import * as Ids from "../src/Ids.ts";

describe("tags", () => {
  it("are the persisted numbers 1..16 in declaration order", () => {
    expect(Ids.kinds.map(Ids.tagOf)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
    expect(Ids.tagOf("debt")).toBe(1);
    expect(Ids.tagOf("installment")).toBe(6);
    expect(Ids.tagOf("webhook_endpoint")).toBe(13);
    expect(Ids.tagOf("ai_detection")).toBe(15);
    expect(Ids.tagOf("sandbox_message")).toBe(16);
  });

  it("map back to their kind", () => {
    expect(Ids.kinds.map((kind) => Ids.kindOfTag(Ids.tagOf(kind)))).toEqual([...Ids.kinds]);
    expect(Ids.kindOfTag(0)).toBeUndefined();
    expect(Ids.kindOfTag(17)).toBeUndefined();
  });
});

describe("PublicId", () => {
  const decode = Schema.decodeUnknownEither(Ids.PublicId);

  it("accepts URL-safe base64 of 16 to 64 characters", () => {
    expect(decode("AbCdEfGh_-123456")).toEqual(Either.right("AbCdEfGh_-123456"));
    expect(decode("a".repeat(64))).toEqual(Either.right("a".repeat(64)));
  });

  it("rejects other strings", () => {
    for (const bad of [
      "",
      "a".repeat(15),
      "a".repeat(65),
      "abcdefghijklmno+",
      "abcdefghijklmno/",
      "abcdefghijklmnop=",
      42,
    ]) {
      expect(Either.isLeft(decode(bad))).toBe(true);
    }
  });
});

describe("Kind", () => {
  it("decodes only known kinds", () => {
    expect(Schema.decodeUnknownEither(Ids.Kind)("oauth_client")).toEqual(Either.right("oauth_client"));
    expect(Either.isLeft(Schema.decodeUnknownEither(Ids.Kind)("payment"))).toBe(true);
  });
});
