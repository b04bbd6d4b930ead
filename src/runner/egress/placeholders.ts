// Secret placeholders in a module's requests (docs/module-contract.md). Only `{{secret:NAME:TAG}}` with
// the call's own tag is filled: the module got the tag in its call object and in its config, where the
// host rewrote each `{{secret:NAME}}`; text it did not write with the tag (input, a webhook body, a
// vendor's answer) therefore cannot name a secret and goes out as written. The tag itself never leaves:
// text carrying it anywhere but inside a filled placeholder is refused.
import { MIN_REDACTED_LENGTH, type Redactor } from '../redaction.ts';
import { percentEncode } from '../spellings.ts';

/** A secret name: a letter, then up to 63 letters, digits or underscores (as a manifest declares it). */
const NAME = '[A-Za-z][A-Za-z0-9_]{0,63}';

export interface SecretSource {
  secretTag: string;
  /** The install's required secrets, NAME → value; nothing else can be filled. */
  secrets: ReadonlyMap<string, string>;
  redactor: Redactor;
}

export type Filled = { ok: true; text: string; filled: number } | { ok: false; error: string };

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function placeholderPattern(tag: string): RegExp {
  return new RegExp(`\\{\\{secret:(${NAME}):${escapeRegExp(tag)}\\}\\}`, 'g');
}

/** Why the call's placeholders in `text` cannot be filled, or null when they can. */
function placeholderProblem(text: string, where: string, source: SecretSource): string | null {
  const tag = source.secretTag;
  // The tag outside every placeholder (a bare tag, a malformed placeholder) would reach the vendor.
  if (text.replace(placeholderPattern(tag), '').includes(tag)) {
    return `${where} carries the call's secret tag outside a secret placeholder`;
  }
  for (const match of text.matchAll(placeholderPattern(tag))) {
    const name = match[1] as string;
    const value = source.secrets.get(name);
    if (value === undefined)
      return `${where} names secret ${name}, which is not a required secret of this install`;
    // A value the redactor cannot look for could come back in clear: it is never sent.
    if (value.length < MIN_REDACTED_LENGTH) {
      return `${where} names secret ${name}, whose value is shorter than ${MIN_REDACTED_LENGTH} characters and could not be redacted: store a longer one`;
    }
  }
  return null;
}

/**
 * Fills the call's placeholders in `text` and registers each value filled with the redactor. `where`
 * names the place in refusals (`header x-api-key`, `body`), never a value.
 */
export function fillPlaceholders(text: string, where: string, source: SecretSource): Filled {
  const tag = source.secretTag;
  if (tag === '' || !text.includes(tag)) return { ok: true, text, filled: 0 };
  const problem = placeholderProblem(text, where, source);
  if (problem) return { ok: false, error: problem };
  return replacePlaceholders(text, source, (value) => value);
}

function replacePlaceholders(text: string, source: SecretSource, encode: (value: string) => string): Filled {
  let filled = 0;
  const out = text.replace(placeholderPattern(source.secretTag), (_whole, name: string) => {
    const value = source.secrets.get(name) as string;
    source.redactor.secret(name, value);
    filled += 1;
    return encode(value);
  });
  return { ok: true, text: out, filled };
}

const MISPLACED =
  'url: a secret may be filled into the path, query or fragment only, never the scheme, host, port or user info';

/**
 * Where a URL's path begins, as the URL parser reads an http(s) URL: after the scheme and the slashes
 * that follow it, at the first / \ ? or #. -1 when the text starts with no scheme.
 */
function pathStart(url: string): number {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:[/\\]*/.exec(url);
  if (!scheme) return -1;
  const rest = url.slice(scheme[0].length).search(/[/\\?#]/);
  return rest === -1 ? url.length : scheme[0].length + rest;
}

function stripLeadingControls(text: string): string {
  let start = 0;
  while (start < text.length && text.charCodeAt(start) <= 0x20) start += 1;
  return text.slice(start);
}

/**
 * Fills the call's placeholders in a URL. A placeholder may stand in the path, query or fragment only:
 * anywhere else the parser would fold the value into a host (lower-cased, echoed in refusals) or a
 * credential. Each value goes out percent-encoded as one component (RFC 3986: only unreserved characters
 * as they are), so that what is sent is exactly what was registered and the URL parser changes none of it.
 */
export function fillUrl(url: string, source: SecretSource): Filled {
  const tag = source.secretTag;
  if (tag === '' || !url.includes(tag)) return { ok: true, text: url, filled: 0 };
  const problem = placeholderProblem(url, 'url', source);
  if (problem) return { ok: false, error: problem };
  // As the parser reads it: without tabs and newlines, without leading spaces and controls.
  const read = stripLeadingControls(url.replace(/[\t\n\r]/g, ''));
  const first = read.search(placeholderPattern(tag));
  const start = pathStart(read);
  if (start === -1 || first < start) return { ok: false, error: MISPLACED };
  return replacePlaceholders(read, source, (value) => percentEncode(value));
}

/** Whether bytes (a binary body, never filled) carry the tag, so that it would reach the vendor. */
export function bytesCarryTag(bytes: Uint8Array, tag: string): boolean {
  return tag !== '' && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(tag, 0, 'utf8');
}
