// Base64 (RFC 4648, standard alphabet with padding) for webhook bodies, documents and hmac messages.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export function base64Encode(bytes: Uint8Array): string {
  const parts = new Array<string>();
  const n = bytes.length;
  let k = 0;
  for (; k + 3 <= n; k += 3) {
    const v = ((<u32>bytes[k]) << 16) | ((<u32>bytes[k + 1]) << 8) | <u32>bytes[k + 2];
    parts.push(
      ALPHABET.charAt((v >> 18) & 63) +
        ALPHABET.charAt((v >> 12) & 63) +
        ALPHABET.charAt((v >> 6) & 63) +
        ALPHABET.charAt(v & 63),
    );
  }
  const rest = n - k;
  if (rest == 1) {
    const v = (<u32>bytes[k]) << 16;
    parts.push(ALPHABET.charAt((v >> 18) & 63) + ALPHABET.charAt((v >> 12) & 63) + '==');
  } else if (rest == 2) {
    const v = ((<u32>bytes[k]) << 16) | ((<u32>bytes[k + 1]) << 8);
    parts.push(
      ALPHABET.charAt((v >> 18) & 63) +
        ALPHABET.charAt((v >> 12) & 63) +
        ALPHABET.charAt((v >> 6) & 63) +
        '=',
    );
  }
  return parts.join('');
}

function sextet(c: i32): i32 {
  if (c >= 0x41 && c <= 0x5a) return c - 0x41;
  if (c >= 0x61 && c <= 0x7a) return c - 0x61 + 26;
  if (c >= 0x30 && c <= 0x39) return c - 0x30 + 52;
  if (c == 0x2b || c == 0x2d) return 62; // + (and - of base64url)
  if (c == 0x2f || c == 0x5f) return 63; // / (and _ of base64url)
  return -1;
}

/** Decodes base64 or base64url, padded or not; null when the text is not base64. */
export function base64Decode(text: string): Uint8Array | null {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) == 0x3d) end--;
  if (text.length - end > 2 || end % 4 == 1) return null;
  const out = new Uint8Array((end * 3) >> 2);
  let acc: u32 = 0;
  let bits = 0;
  let o = 0;
  for (let k = 0; k < end; k++) {
    const v = sextet(text.charCodeAt(k));
    if (v < 0) return null;
    acc = (acc << 6) | <u32>v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = <u8>((acc >> bits) & 0xff);
    }
  }
  return out;
}
