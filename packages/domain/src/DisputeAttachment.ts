/**
 * The file a debtor may attach to a dispute on the debtor page
 * (docs/decisions/0674): one PDF, JPEG or PNG of at most 5 MiB. Its type is
 * what its first bytes say, whatever the browser declared, so a program
 * renamed `.pdf` is refused and what is stored is served as what it is.
 */

/** Largest attachment accepted, in bytes. */
export const maxBytes = 5 * 1024 * 1024;

export const types = ["application/pdf", "image/jpeg", "image/png"] as const;
export type Type = (typeof types)[number];

/** Longest file name kept; a longer one keeps its end (the extension) and as much of its start as fits. */
export const maxNameLength = 200;

const signatures: ReadonlyArray<{ readonly type: Type; readonly magic: ReadonlyArray<number> }> = [
  { type: "application/pdf", magic: [0x25, 0x50, 0x44, 0x46, 0x2d] }, // %PDF-
  { type: "image/png", magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: "image/jpeg", magic: [0xff, 0xd8, 0xff] },
];

/** The allowed type the content's first bytes show, or undefined for any other content. */
export const typeOf = (content: Uint8Array): Type | undefined =>
  signatures.find(({ magic }) => content.length >= magic.length && magic.every((byte, at) => content[at] === byte))?.type;

const extensions: Readonly<Record<Type, string>> = { "application/pdf": "pdf", "image/jpeg": "jpg", "image/png": "png" };

/**
 * The name to keep for a file the browser called `name`: without control
 * characters or path, at most `maxNameLength` characters, or
 * `attachment.<extension of type>` when nothing is left.
 */
export const nameOf = (name: string, type: Type): string => {
  const base = (name.split(/[\\/]/).pop() ?? "").replace(/[\u0000-\u001f\u007f-\u009f]/g, "").trim();
  if (base === "" || base === "." || base === "..") return `attachment.${extensions[type]}`;
  const characters = [...base];
  if (characters.length <= maxNameLength) return base;
  const dot = base.lastIndexOf(".");
  const extension = dot > 0 && base.length - dot <= 10 ? base.slice(dot) : "";
  return characters.slice(0, maxNameLength - [...extension].length).join("") + extension;
};
