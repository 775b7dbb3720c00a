import { describe, expect, it } from "vitest";
import * as DebtorTimeZone from "../src/DebtorTimeZone.ts";

const where = (country: string | null, postalCode: string | null = null, phone: string | null = null) => ({
  country,
  postalCode,
  phone,
});
const alaska = [
  "America/Adak",
  "America/Anchorage",
  "America/Juneau",
  "America/Metlakatla",
  "America/Nome",
  "America/Sitka",
  "America/Yakutat",
];

describe("countryCode", () => {
  it("reads a two-letter code in any case, and a country's name in several languages", () => {
    expect(
      [
        "fr",
        " US ",
        "Allemagne",
        "Deutschland",
        "España",
        "Côte d'Ivoire",
        "United States",
        "usa",
        "UK",
        "zz",
        "Atlantis",
        "",
      ].map(DebtorTimeZone.countryCode),
    ).toEqual(["FR", "US", "DE", "DE", "ES", "CI", "US", "US", "GB", null, null, null]);
  });
});

describe("candidates", () => {
  it("is the country's zone for a one-zone country, whatever the case of the code", () => {
    expect(DebtorTimeZone.candidates(where("fr", "75011"), "America/New_York")).toEqual(["Europe/Paris"]);
    expect(DebtorTimeZone.candidates(where("NP"), "Europe/Paris")).toEqual(["Asia/Kathmandu"]);
  });

  it("narrows by postal code where a rule is reliable", () => {
    expect(
      [
        where("FR", "97200"),
        where("FR", "97400"),
        where("FR", "98713"),
        where("ES", "35001"),
        where("ES", "28001"),
        where("PT", "9500-123"),
        where("PT", "9000-018"),
        where("PT", "1100-148"),
        where("US", "96813"),
        where("US", "00901"),
        where("CA", "M5V 2T6"),
        where("CA", "R3C 4T3"),
        where("AU", "2898"),
        where("AU", "2880"),
        where("AU", "6000"),
        where("AU", "0800"),
      ].map((debtor) => DebtorTimeZone.candidates(debtor, "UTC")),
    ).toEqual([
      ["America/Martinique"],
      ["Indian/Reunion"],
      ["Pacific/Gambier", "Pacific/Marquesas", "Pacific/Tahiti"],
      ["Atlantic/Canary"],
      ["Europe/Madrid"],
      ["Atlantic/Azores"],
      ["Atlantic/Madeira"],
      ["Europe/Lisbon"],
      ["Pacific/Honolulu"],
      ["America/Puerto_Rico"],
      ["America/Toronto"],
      ["America/Winnipeg"],
      ["Australia/Lord_Howe"],
      ["Australia/Broken_Hill"],
      ["Australia/Perth"],
      ["Australia/Darwin"],
    ]);
  });

  it("keeps every zone of a territory that spans several, and of the contiguous United States", () => {
    expect(DebtorTimeZone.candidates(where("US", "99501"), "UTC")).toEqual(alaska);
    const contiguous = DebtorTimeZone.candidates(where("US", "10001-1234"), "UTC");
    expect(contiguous).toContain("America/New_York");
    expect(contiguous).toContain("America/Los_Angeles");
    expect(contiguous.filter((zone) => alaska.includes(zone) || zone === "Pacific/Honolulu")).toEqual([]);
  });

  it("keeps the country's whole list when the postal code says nothing reliable", () => {
    const all = DebtorTimeZone.candidates(where("US"), "UTC");
    expect(all).toContain("Pacific/Honolulu");
    expect(DebtorTimeZone.candidates(where("US", "not a zip"), "UTC")).toEqual(all);
    expect(DebtorTimeZone.candidates(where("US", "09001"), "UTC")).toEqual(all);
    expect(DebtorTimeZone.candidates(where("KI"), "UTC")).toEqual([
      "Pacific/Kanton",
      "Pacific/Kiritimati",
      "Pacific/Tarawa",
    ]);
  });

  it("takes the phone's country when the debt has no country, and ignores it when the debt has one", () => {
    expect(DebtorTimeZone.candidates(where(null, null, "+33612345678"), "America/New_York")).toEqual(["Europe/Paris"]);
    expect(DebtorTimeZone.candidates(where(null, null, "+14165550123"), "UTC")).toContain("America/Toronto");
    expect(DebtorTimeZone.candidates(where(null, null, "+14165550123"), "UTC")).not.toContain("America/New_York");
    expect(DebtorTimeZone.candidates(where("DE", null, "+14165550123"), "UTC")).toEqual([
      "Europe/Berlin",
      "Europe/Zurich",
    ]);
  });

  it("falls back on the company's zone, and on UTC when the company's zone is unknown", () => {
    expect(DebtorTimeZone.candidates(where(null), "Asia/Kolkata")).toEqual(["Asia/Kolkata"]);
    expect(DebtorTimeZone.candidates(where("Atlantis", "123", "not a phone"), "Asia/Kolkata")).toEqual([
      "Asia/Kolkata",
    ]);
    expect(DebtorTimeZone.candidates(where(null), "Mars/Olympus_Mons")).toEqual(["UTC"]);
  });
});

describe("isDiallable", () => {
  it("accepts an international number, or a national one in the debt's country", () => {
    expect([
      DebtorTimeZone.isDiallable("+33612345678", null),
      DebtorTimeZone.isDiallable("0612345678", "FR"),
      DebtorTimeZone.isDiallable("0612345678", null),
      DebtorTimeZone.isDiallable("+331", null),
      DebtorTimeZone.isDiallable("   ", "FR"),
      DebtorTimeZone.isDiallable(null, "FR"),
    ]).toEqual([true, true, false, false, false, false]);
  });
});
