// Variants of a fixture that differ only in their manifest (another name, version, schema or hosts) are
// made from one compiled module by rewriting the manifest's text in its data, rather than compiled again
// (a second of AssemblyScript each, hundreds of variants in a run). The fixture is compiled once with its
// manifest padded by spaces (JSON allows them); a variant's manifest, padded to the same length, takes
// the place of those UTF-16 code units, so no offset or length in the module changes.

/** Room a variant's manifest may grow by, in UTF-16 code units. */
export const MANIFEST_ROOM = 2048;

const LITERAL = /`(\{"interface":[^`$\\]*)`/;

export interface ManifestSource {
  /** The source with the manifest literal padded (what is compiled once). */
  padded: string;
  /** The padded manifest text, as the compiled module holds it. */
  manifest: string;
}

/** The fixture source with its manifest literal padded, or null when it has no such literal. */
export function padManifest(source: string): ManifestSource | null {
  return padded(source, LITERAL.exec(source));
}

function padded(source: string, match: RegExpExecArray | null): ManifestSource | null {
  if (!match?.[1]) return null;
  const manifest = match[1] + ' '.repeat(MANIFEST_ROOM);
  const end = match.index + match[0].length;
  return { padded: `${source.slice(0, match.index)}\`${manifest}\`${source.slice(end)}`, manifest };
}

/**
 * The padded manifest of a variant, when every replacement falls inside the manifest and nowhere else in
 * the source and the result fits; null when the variant must be compiled.
 */
export function variantManifest(
  source: string,
  replacements: Record<string, string>,
): { base: ManifestSource; manifest: string } | null {
  const match = LITERAL.exec(source);
  const base = padded(source, match);
  if (!base || !match?.[1]) return null;
  const original = match[1];
  const outside = source.slice(0, match.index) + source.slice(match.index + match[0].length);
  let text = original;
  for (const [from, to] of Object.entries(replacements)) {
    if (!text.includes(from) || outside.includes(from) || to.includes('`') || to.includes('$')) return null;
    text = text.split(from).join(to);
  }
  if (text.length > base.manifest.length) return null;
  return { base, manifest: text.padEnd(base.manifest.length, ' ') };
}

const utf16 = (text: string) => Buffer.from(text, 'utf16le');

/** The module with one manifest's code units replaced by another's of equal length; null if not found once. */
export function replaceManifest(bytes: Uint8Array, from: string, to: string): Uint8Array | null {
  const old = utf16(from);
  const buffer = Buffer.from(bytes);
  const at = buffer.indexOf(old);
  if (at < 0 || buffer.indexOf(old, at + 1) >= 0 || from.length !== to.length) return null;
  const patched = Buffer.from(buffer);
  utf16(to).copy(patched, at);
  return new Uint8Array(patched);
}
