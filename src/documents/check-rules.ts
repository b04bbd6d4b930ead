// The document check (docs/documents.md "The check"), pure: which content types an upload may declare,
// and the verdict on a stored document's bytes. It is a check that the bytes are what they say they
// are, not a malware scan: a document is clean when it is not empty, carries no executable or archive
// signature, and its bytes open as the type it declared.

/** The statuses of a document: uploaded and not yet checked, readable by calls, or refused by the check. */
export const DOCUMENT_STATUSES = ['pending', 'clean', 'rejected'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

/** Why the check refused a document; `missing` when its bytes were not in storage, or not the ones uploaded. */
export const REJECTION_REASONS = [
  'empty',
  'executable',
  'archive',
  'type_mismatch',
  'invalid_text',
  'missing',
] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];

export type Verdict = { status: 'clean' } | { status: 'rejected'; reason: RejectionReason };

/** How a type's bytes are recognised: a signature at the start, or text (UTF-8 without control characters). */
type Recognition =
  | { kind: 'signature'; matches: (bytes: Uint8Array) => boolean }
  | { kind: 'text'; json?: boolean };

const at = (bytes: Uint8Array, offset: number, signature: readonly number[]) =>
  bytes.length >= offset + signature.length && signature.every((byte, i) => bytes[offset + i] === byte);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/**
 * The types a document may declare, by their essence (lower-case `type/subtype`, parameters dropped):
 * the scans, photos and statements a risk team collects. Anything else (archives, executables, office
 * formats that are zip archives inside) is refused at upload with 415.
 */
const ACCEPTED: Record<string, Recognition> = {
  'application/pdf': { kind: 'signature', matches: (b) => at(b, 0, ascii('%PDF-')) },
  'image/png': {
    kind: 'signature',
    matches: (b) => at(b, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  },
  'image/jpeg': { kind: 'signature', matches: (b) => at(b, 0, [0xff, 0xd8, 0xff]) },
  'image/gif': {
    kind: 'signature',
    matches: (b) => at(b, 0, ascii('GIF87a')) || at(b, 0, ascii('GIF89a')),
  },
  'image/webp': { kind: 'signature', matches: (b) => at(b, 0, ascii('RIFF')) && at(b, 8, ascii('WEBP')) },
  'image/tiff': {
    kind: 'signature',
    matches: (b) => at(b, 0, [0x49, 0x49, 0x2a, 0x00]) || at(b, 0, [0x4d, 0x4d, 0x00, 0x2a]),
  },
  'text/plain': { kind: 'text' },
  'text/csv': { kind: 'text' },
  'application/json': { kind: 'text', json: true },
};

export const ACCEPTED_CONTENT_TYPES: readonly string[] = Object.keys(ACCEPTED);

/** `Application/PDF; x=y` → `application/pdf`; null when the value is not a media type at all. */
export function essenceOf(contentType: string): string | null {
  const essence = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/.test(essence)
    ? essence
    : null;
}

/** The type a document is stored under, or null when an upload may not declare it (415). */
export function acceptedType(contentType: string): string | null {
  const essence = essenceOf(contentType);
  return essence !== null && Object.hasOwn(ACCEPTED, essence) ? essence : null;
}

/**
 * Signatures of programs: ELF, Mach-O (both byte orders and widths, and fat binaries, whose magic Java
 * class files share), WebAssembly, a script's `#!`, and a Windows PE (`MZ` with `PE\0\0` where its header
 * points, so that a text beginning with "MZ" is not taken for one).
 */
function isExecutable(b: Uint8Array): boolean {
  if (at(b, 0, [0x7f, 0x45, 0x4c, 0x46])) return true;
  for (const magic of [
    [0xfe, 0xed, 0xfa, 0xce],
    [0xfe, 0xed, 0xfa, 0xcf],
    [0xce, 0xfa, 0xed, 0xfe],
    [0xcf, 0xfa, 0xed, 0xfe],
    [0xca, 0xfe, 0xba, 0xbe],
    [0x00, 0x61, 0x73, 0x6d],
  ]) {
    if (at(b, 0, magic)) return true;
  }
  if (at(b, 0, ascii('#!'))) return true;
  if (at(b, 0, ascii('MZ')) && b.length >= 0x40) {
    const header = new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(0x3c, true);
    return at(b, header, [0x50, 0x45, 0x00, 0x00]);
  }
  return false;
}

/**
 * Signatures of archives and compressed streams, which could carry anything past the check: zip (and
 * so docx, xlsx, jar, apk), gzip, bzip2 (with its block magic, so that text beginning "BZh" passes),
 * xz, 7-Zip, RAR, zstd, cabinet, and tar (`ustar` at offset 257).
 */
function isArchive(b: Uint8Array): boolean {
  for (const magic of [
    [0x50, 0x4b, 0x03, 0x04],
    [0x50, 0x4b, 0x05, 0x06],
    [0x50, 0x4b, 0x07, 0x08],
    [0x1f, 0x8b],
    [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00],
    [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c],
    [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07],
    [0x28, 0xb5, 0x2f, 0xfd],
    ascii('MSCF'),
  ]) {
    if (at(b, 0, magic)) return true;
  }
  const level = b[3] ?? 0;
  if (
    at(b, 0, ascii('BZh')) &&
    level >= 0x31 &&
    level <= 0x39 &&
    at(b, 4, [0x31, 0x41, 0x59, 0x26, 0x53, 0x59])
  )
    return true;
  return at(b, 257, ascii('ustar'));
}

/** UTF-8 without NUL or other control characters but tab, line feed, form feed and carriage return. */
function textOf(bytes: Uint8Array): string | null {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this looks for
  return /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(text) ? null : text;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The verdict on a document's bytes, checked in this order: empty; an executable's signature; an
 * archive's; then the declared type — a binary type's signature at the start, or for a text type valid
 * UTF-8 without control characters (and for JSON, JSON). `contentType` is the stored essence.
 */
export function verdictOf(contentType: string, bytes: Uint8Array): Verdict {
  if (bytes.byteLength === 0) return { status: 'rejected', reason: 'empty' };
  if (isExecutable(bytes)) return { status: 'rejected', reason: 'executable' };
  if (isArchive(bytes)) return { status: 'rejected', reason: 'archive' };
  const recognition = Object.hasOwn(ACCEPTED, contentType) ? ACCEPTED[contentType] : undefined;
  if (!recognition) return { status: 'rejected', reason: 'type_mismatch' };
  if (recognition.kind === 'signature') {
    return recognition.matches(bytes) ? { status: 'clean' } : { status: 'rejected', reason: 'type_mismatch' };
  }
  const text = textOf(bytes);
  if (text === null || (recognition.json && !isJson(text)))
    return { status: 'rejected', reason: 'invalid_text' };
  return { status: 'clean' };
}
