// A strict JSON parser (RFC 8259) producing Values. Nesting is bounded by MAX_JSON_DEPTH.
import { MAX_JSON_DEPTH, Value } from './json';

let lastParseError = '';
let lastParseErrorAt = -1;

/** Why the last parse failed ('' after a success). */
export function lastJsonError(): string {
  return lastParseError;
}

/** Where (UTF-16 offset into the text) the last parse failed; -1 after a success. */
export function lastJsonErrorAt(): i32 {
  return lastParseErrorAt;
}

class Parser {
  pos: i32 = 0;
  failed: bool = false;
  depth: i32 = 0;
  constructor(public text: string) {}

  @inline peek(): i32 {
    return this.pos < this.text.length ? <i32>this.text.charCodeAt(this.pos) : -1;
  }

  fail(what: string): Value {
    if (!this.failed) {
      this.failed = true;
      lastParseError = what + ' at position ' + this.pos.toString();
      lastParseErrorAt = this.pos;
    }
    return Value.null();
  }

  skipSpace(): void {
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c != 0x20 && c != 0x09 && c != 0x0a && c != 0x0d) return;
      this.pos++;
    }
  }

  literal(word: string, value: Value): Value {
    if (this.text.substring(this.pos, this.pos + word.length) != word)
      return this.fail('unexpected character');
    this.pos += word.length;
    return value;
  }

  value(): Value {
    this.skipSpace();
    const c = this.peek();
    if (c == 0x7b) return this.object();
    if (c == 0x5b) return this.array();
    if (c == 0x22) {
      const s = this.string();
      return this.failed ? Value.null() : Value.string(s);
    }
    if (c == 0x74) return this.literal('true', Value.bool(true));
    if (c == 0x66) return this.literal('false', Value.bool(false));
    if (c == 0x6e) return this.literal('null', Value.null());
    if (c == 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    return this.fail(c < 0 ? 'unexpected end of JSON' : 'unexpected character');
  }

  enter(): bool {
    if (++this.depth > MAX_JSON_DEPTH) {
      this.fail('nesting deeper than ' + MAX_JSON_DEPTH.toString() + ' levels');
      return false;
    }
    return true;
  }

  array(): Value {
    if (!this.enter()) return Value.null();
    this.pos++; // [
    const result = Value.array();
    this.skipSpace();
    if (this.peek() == 0x5d) {
      this.pos++;
      this.depth--;
      return result;
    }
    while (true) {
      const item = this.value();
      if (this.failed) return item;
      result.push(item);
      this.skipSpace();
      const c = this.peek();
      this.pos++;
      if (c == 0x2c) continue;
      if (c == 0x5d) break;
      this.pos--;
      return this.fail("expected ',' or ']'");
    }
    this.depth--;
    return result;
  }

  object(): Value {
    if (!this.enter()) return Value.null();
    this.pos++; // {
    const result = Value.object();
    this.skipSpace();
    if (this.peek() == 0x7d) {
      this.pos++;
      this.depth--;
      return result;
    }
    while (true) {
      this.skipSpace();
      if (this.peek() != 0x22) return this.fail('expected a member name');
      const key = this.string();
      if (this.failed) return Value.null();
      this.skipSpace();
      if (this.peek() != 0x3a) return this.fail("expected ':'");
      this.pos++;
      const item = this.value();
      if (this.failed) return item;
      result.set(key, item);
      this.skipSpace();
      const c = this.peek();
      this.pos++;
      if (c == 0x2c) continue;
      if (c == 0x7d) break;
      this.pos--;
      return this.fail("expected ',' or '}'");
    }
    this.depth--;
    return result;
  }

  hex4(): i32 {
    if (this.pos + 4 > this.text.length) return -1;
    let n = 0;
    for (let k = 0; k < 4; k++) {
      const c = <i32>this.text.charCodeAt(this.pos + k);
      let d = -1;
      if (c >= 0x30 && c <= 0x39) d = c - 0x30;
      else if (c >= 0x61 && c <= 0x66) d = c - 0x57;
      else if (c >= 0x41 && c <= 0x46) d = c - 0x37;
      if (d < 0) return -1;
      n = (n << 4) | d;
    }
    this.pos += 4;
    return n;
  }

  /** A string literal at pos (pos on the opening quote). \uXXXX pairs combine; lone surrogates stay. */
  string(): string {
    this.pos++; // "
    const parts = new Array<string>();
    let start = this.pos;
    const len = this.text.length;
    while (true) {
      if (this.pos >= len) {
        this.fail('unterminated string');
        return '';
      }
      const c = this.text.charCodeAt(this.pos);
      if (c == 0x22) break;
      if (c < 0x20) {
        this.fail('control character in string');
        return '';
      }
      if (c != 0x5c) {
        this.pos++;
        continue;
      }
      if (this.pos > start) parts.push(this.text.substring(start, this.pos));
      this.pos++;
      const e = this.peek();
      this.pos++;
      if (e == 0x22) parts.push('"');
      else if (e == 0x5c) parts.push('\\');
      else if (e == 0x2f) parts.push('/');
      else if (e == 0x62) parts.push('\b');
      else if (e == 0x66) parts.push('\f');
      else if (e == 0x6e) parts.push('\n');
      else if (e == 0x72) parts.push('\r');
      else if (e == 0x74) parts.push('\t');
      else if (e == 0x75) {
        const unit = this.hex4();
        if (unit < 0) {
          this.fail('bad \\u escape');
          return '';
        }
        parts.push(String.fromCharCode(unit));
      } else {
        this.pos--;
        this.fail('bad escape');
        return '';
      }
      start = this.pos;
    }
    if (this.pos > start) parts.push(this.text.substring(start, this.pos));
    this.pos++; // "
    // Surrogate halves escaped separately (\ud83d\ude00) meet again in the joined UTF-16 text.
    return parts.length == 1 ? parts[0] : parts.join('');
  }

  digits(): i32 {
    const from = this.pos;
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c < 0x30 || c > 0x39) break;
      this.pos++;
    }
    return this.pos - from;
  }

  number(): Value {
    const start = this.pos;
    const negative = this.peek() == 0x2d;
    if (negative) this.pos++;
    const intStart = this.pos;
    const intDigits = this.digits();
    if (intDigits == 0) return this.fail('expected a digit');
    if (intDigits > 1 && this.text.charCodeAt(intStart) == 0x30) {
      this.pos = intStart + 1;
      return this.fail('leading zero');
    }
    let integral = true;
    if (this.peek() == 0x2e) {
      this.pos++;
      if (this.digits() == 0) return this.fail('expected a digit after the decimal point');
      integral = false;
    }
    const e = this.peek();
    if (e == 0x65 || e == 0x45) {
      this.pos++;
      const sign = this.peek();
      if (sign == 0x2b || sign == 0x2d) this.pos++;
      if (this.digits() == 0) return this.fail('expected a digit in the exponent');
      integral = false;
    }
    const literal = this.text.substring(start, this.pos);
    if (integral && intDigits <= 19) {
      // Exact when it fits in i64: magnitude accumulated negatively so -2^63 fits too.
      let acc: i64 = 0;
      let fits = true;
      for (let k = intStart; k < this.pos; k++) {
        const d = <i64>(this.text.charCodeAt(k) - 0x30);
        if (acc < (i64.MIN_VALUE + d) / 10) {
          fits = false;
          break;
        }
        acc = acc * 10 - d;
      }
      if (fits && (negative || acc != i64.MIN_VALUE)) return Value.integer(negative ? acc : -acc);
    }
    return Value.number(parseFloat(literal));
  }
}

/** Parses JSON text; null when it is not JSON (JSON.lastError() says why). */
export function parseJson(text: string): Value | null {
  lastParseError = '';
  lastParseErrorAt = -1;
  const parser = new Parser(text);
  const value = parser.value();
  if (!parser.failed) {
    parser.skipSpace();
    if (parser.pos < text.length) parser.fail('unexpected text after the JSON value');
  }
  return parser.failed ? null : value;
}

export namespace JSON {
  /** Parses JSON text; null when it is not JSON (lastError() says why). */
  export function parse(text: string): Value | null {
    return parseJson(text);
  }

  /** Parses JSON text the module trusts (its own constants); aborts when it is not JSON. */
  export function parseOrAbort(text: string): Value {
    const value = parseJson(text);
    if (value === null) abort('not JSON: ' + lastJsonError());
    return value!;
  }

  export function stringify(value: Value): string {
    return value.toString();
  }

  /** Why the last parse failed ('' after a success). */
  export function lastError(): string {
    return lastJsonError();
  }
}
