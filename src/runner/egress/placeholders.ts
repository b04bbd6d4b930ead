// Secret placeholders in what a module asks to send (spec part 1 §2.14). Only `{{secret:NAME:TAG}}` with
// the call's own tag is filled: the module got the tag in its call object and in its config, where the
// host rewrote each `{{secret:NAME}}`; text it did not write with the tag (input, a webhook body, a
// vendor's answer) therefore cannot name a secret and goes out as written. The tag itself never leaves:
// text carrying it anywhere but inside a filled placeholder is refused.
import type { Redactor } from '../redaction.ts';

/** A secret name: a letter, then up to 63 letters, digits or underscores (spec part 1 §2.3). */
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

/**
 * Fills the call's placeholders in `text` and registers each value filled with the redactor. `where`
 * names the place in refusals (`url`, `header x-api-key`, `body`), never a value.
 */
export function fillPlaceholders(text: string, where: string, source: SecretSource): Filled {
  const tag = source.secretTag;
  if (tag === '' || !text.includes(tag)) return { ok: true, text, filled: 0 };

  const pattern = placeholderPattern(tag);
  // The tag outside every placeholder (a bare tag, a malformed placeholder) would reach the vendor.
  if (text.replace(pattern, '').includes(tag)) {
    return { ok: false, error: `${where} carries the call's secret tag outside a secret placeholder` };
  }
  for (const match of text.matchAll(pattern)) {
    const name = match[1] as string;
    if (!source.secrets.has(name)) {
      return {
        ok: false,
        error: `${where} names secret ${name}, which is not a required secret of this install`,
      };
    }
  }
  let filled = 0;
  const out = text.replace(pattern, (_whole, name: string) => {
    const value = source.secrets.get(name) as string;
    source.redactor.secret(name, value);
    filled += 1;
    return value;
  });
  return { ok: true, text: out, filled };
}

/** Whether bytes (a binary body, never filled) carry the tag, so that it would reach the vendor. */
export function bytesCarryTag(bytes: Uint8Array, tag: string): boolean {
  return tag !== '' && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(tag, 0, 'utf8');
}
