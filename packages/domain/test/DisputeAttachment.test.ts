import { describe, expect, it } from "vitest";
import { DisputeAttachment } from "../src/index.ts";

const bytes = (...values: ReadonlyArray<number>) => Uint8Array.from(values);

describe("DisputeAttachment", () => {
  it("tells PDF, PNG and JPEG by their first bytes, and nothing else", () => {
    expect(DisputeAttachment.typeOf(Buffer.from("%PDF-1.7\n"))).toBe("application/pdf");
    expect(DisputeAttachment.typeOf(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0))).toBe("image/png");
    expect(DisputeAttachment.typeOf(bytes(0xff, 0xd8, 0xff, 0xe0))).toBe("image/jpeg");
    expect(DisputeAttachment.typeOf(Buffer.from("MZ\x90\x00"))).toBeUndefined();
    expect(DisputeAttachment.typeOf(Buffer.from("%PDF"))).toBeUndefined();
    expect(DisputeAttachment.typeOf(bytes())).toBeUndefined();
  });

  it("keeps a file's own name without path or control characters, within the length", () => {
    expect(DisputeAttachment.nameOf("C:\\Users\\amelie\\reçu mai.pdf", "application/pdf")).toBe("reçu mai.pdf");
    expect(DisputeAttachment.nameOf("bad\u0000\u001bname.png", "image/png")).toBe("badname.png");
    expect(DisputeAttachment.nameOf("  ", "image/jpeg")).toBe("attachment.jpg");
    const long = DisputeAttachment.nameOf(`${"é".repeat(300)}.pdf`, "application/pdf");
    expect([...long]).toHaveLength(DisputeAttachment.maxNameLength);
    expect(long.endsWith("é.pdf")).toBe(true);
  });
});
