// What an attempt keeps of the receiver's answer (docs/outbound-webhooks.md "Attempts"): its first KiB as
// text, storable (no U+0000: PostgreSQL refuses it) and safe to show (no control or reordering character
// that would change what a person reads: src/unsafe-characters.ts). Pure.
import { C0_CONTROLS, UNSAFE_BEYOND_C0 } from '../../unsafe-characters.ts';

/** The bytes of an answer kept: 1 KiB. */
export const EXCERPT_BYTES = 1024;

const REPLACEMENT = '\ufffd';
/** The C0 controls but tab, line feed and carriage return (they lay text out), and the unsafe beyond. */
const UNSAFE = new RegExp(`(?![\\t\\n\\r])[${C0_CONTROLS}${UNSAFE_BEYOND_C0}]`, 'g');

/**
 * The answer's first EXCERPT_BYTES bytes as UTF-8 text, every unsafe character (U+0000 among them) and
 * invalid byte as U+FFFD; a character cut at the end is left out whole. Null for an empty answer.
 */
export function responseExcerpt(bytes: Uint8Array): string | null {
  if (bytes.length === 0) return null;
  // stream: a sequence the cut left incomplete is held back, not decoded as U+FFFD.
  const text = new TextDecoder('utf-8').decode(bytes.subarray(0, EXCERPT_BYTES), { stream: true });
  return text.replace(UNSAFE, REPLACEMENT);
}
