import { describe, expect, it } from "vitest";
import * as Channel from "../src/Channel.ts";
import * as Followup from "../src/Followup.ts";

describe("Channel", () => {
  it("maps every followup type but a visit to a channel, and back", () => {
    expect(Followup.types.map((type) => [type, Channel.fromFollowupType(type)])).toEqual([
      ["call", "ai_call"],
      ["email", "email"],
      ["sms", "sms"],
      ["whatsapp", "whatsapp"],
      ["voicemail", "voicemail"],
      ["manual_call", "manual_call"],
      ["physical", null],
      ["postmail", "postmail"],
    ]);
    for (const channel of Channel.channels)
      expect(Channel.fromFollowupType(Channel.followupType(channel))).toBe(channel);
  });

  it("counts AI calls, calls by a person and voicemail drops as calls", () => {
    expect(Channel.channels.filter(Channel.isCall)).toEqual(["ai_call", "voicemail", "manual_call"]);
    expect(["email", "fax"].map(Channel.isChannel)).toEqual([true, false]);
  });
});
