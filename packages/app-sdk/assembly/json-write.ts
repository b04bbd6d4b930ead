// JSON text of a Value, as JavaScript's JSON.stringify writes it (no spaces).
import { JsonKind, Value } from './json';

const HEX = '0123456789abcdef';

function formatNumber(v: Value): string {
  if (v.isExact()) return v.rawInteger().toString();
  const n = v.rawNumber();
  if (!isFinite(n)) return 'null';
  if (n == 0) return '0';
  // Shortest round-trip digits, as JavaScript chooses them; integral values come as "3.0" or
  // "12345678901234567000.0" (JavaScript writes fixed notation below 1e21, exponents above).
  const s = n.toString();
  return s.endsWith('.0') ? s.substring(0, s.length - 2) : s;
}

/** A string as JSON.stringify quotes it: ", \ and controls escaped, lone surrogates as \uXXXX. */
export function quote(s: string): string {
  const parts = new Array<string>();
  parts.push('"');
  let start = 0;
  const len = s.length;
  for (let k = 0; k < len; k++) {
    const c = s.charCodeAt(k);
    let escaped: string | null = null;
    if (c == 0x22) escaped = '\\"';
    else if (c == 0x5c) escaped = '\\\\';
    else if (c < 0x20) {
      if (c == 0x08) escaped = '\\b';
      else if (c == 0x09) escaped = '\\t';
      else if (c == 0x0a) escaped = '\\n';
      else if (c == 0x0c) escaped = '\\f';
      else if (c == 0x0d) escaped = '\\r';
      else escaped = unicodeEscape(c);
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const high = c <= 0xdbff;
      const next = k + 1 < len ? s.charCodeAt(k + 1) : 0;
      if (high && next >= 0xdc00 && next <= 0xdfff) {
        k++; // a well-formed pair is written as it is
        continue;
      }
      escaped = unicodeEscape(c);
    }
    if (escaped !== null) {
      if (k > start) parts.push(s.substring(start, k));
      parts.push(escaped);
      start = k + 1;
    }
  }
  if (start < len) parts.push(s.substring(start));
  parts.push('"');
  return parts.join('');
}

function unicodeEscape(c: i32): string {
  return (
    '\\u' +
    HEX.charAt((c >> 12) & 15) +
    HEX.charAt((c >> 8) & 15) +
    HEX.charAt((c >> 4) & 15) +
    HEX.charAt(c & 15)
  );
}

export function write(v: Value, out: Array<string>): void {
  switch (v.kind) {
    case JsonKind.Null:
      out.push('null');
      break;
    case JsonKind.Bool:
      out.push(v.rawBool() ? 'true' : 'false');
      break;
    case JsonKind.Number:
      out.push(formatNumber(v));
      break;
    case JsonKind.String:
      out.push(quote(v.rawString()));
      break;
    case JsonKind.Array: {
      const items = v.rawItems();
      out.push('[');
      for (let k = 0; k < items.length; k++) {
        if (k > 0) out.push(',');
        write(items[k], out);
      }
      out.push(']');
      break;
    }
    default: {
      const names = v.rawNames();
      const items = v.rawItems();
      out.push('{');
      for (let k = 0; k < names.length; k++) {
        if (k > 0) out.push(',');
        out.push(quote(names[k]));
        out.push(':');
        write(items[k], out);
      }
      out.push('}');
    }
  }
}
