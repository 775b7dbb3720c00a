import { describe, expect, it } from "vitest";
import * as InboundReply from "../src/InboundReply.ts";

describe("InboundReply", () => {
  it("reads each opt-out keyword, trimmed, in any case and with or without accents, as an opt-out", () => {
    for (const keyword of InboundReply.optOutKeywords) {
      expect(InboundReply.meaningOf(keyword)).toBe("opt_out");
      expect(InboundReply.meaningOf(`  ${keyword.toLowerCase()}\n`)).toBe("opt_out");
    }
    expect(
      ["Stop", "stop.", " STOP! ", "Arrêt", "arret", "ARRÊT", "Désinscrire", "désinscrire", "StopAll"].map(
        InboundReply.isOptOut,
      ),
    ).toEqual([true, true, true, true, true, true, true, true, true]);
  });

  it("reads an opt-out keyword within a longer message as a response, not an opt-out", () => {
    expect(
      ["stop calling me at work", "please stop", "the end is near", "unsubscribed?!? why", "stopper"].map(
        InboundReply.meaningOf,
      ),
    ).toEqual(["response", "response", "response", "response", "response"]);
  });

  it("reads English and French disputes as disputes", () => {
    const disputes = [
      "This is not my debt",
      "I ALREADY PAID this last month",
      "I dispute this amount",
      "I contest it",
      "I don't owe you anything",
      "Ce n'est pas ma dette",
      "J'ai déjà payé !",
      "deja paye",
      "Je conteste cette facture",
      "Il y a un litige avec le créancier",
      "je ne dois rien",
    ];
    expect(disputes.map(InboundReply.meaningOf)).toEqual(disputes.map(() => "dispute"));
  });

  it("reads other replies as plain responses", () => {
    const replies = [
      "OK I will pay on Friday",
      "Who is this?",
      "Je paierai demain",
      "Merci, je rappelle",
      "contestant", // a word that only starts like a keyword
      "",
    ];
    expect(replies.map(InboundReply.meaningOf)).toEqual(replies.map(() => "response"));
  });
});
