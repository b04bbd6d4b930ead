// JSON for AssemblyScript apps: one value type (Value), a strict RFC 8259 parser and a serializer that
// writes what JavaScript's JSON.stringify writes. Objects keep their members in insertion order; a
// repeated member name keeps its first place and its last value, as JSON.parse does. Numbers are f64;
// an integer literal that fits in i64 is also kept exactly (asInteger), and Value.integer writes exactly.

import { write } from './json-write';

export enum JsonKind {
  Null = 0,
  Bool = 1,
  Number = 2,
  String = 3,
  Array = 4,
  Object = 5,
}

/** Nesting deeper than this is refused by the parser rather than exhausting the stack. */
export const MAX_JSON_DEPTH = 512;
/** Objects with more members than this look members up through a map. */
const INDEX_FROM = 8;

export class Value {
  kind: JsonKind = JsonKind.Null;
  private b: bool = false;
  private n: f64 = 0;
  private i: i64 = 0;
  private exact: bool = false;
  private s: string = '';
  // Allocated only for arrays (items) and objects (items, names; index once an object has many members).
  private items!: Array<Value>;
  private names!: Array<string>;
  private index: Map<string, i32> | null = null;

  // ---- construction -------------------------------------------------------------------------------

  static null(): Value {
    return new Value();
  }

  static bool(value: bool): Value {
    const v = new Value();
    v.kind = JsonKind.Bool;
    v.b = value;
    return v;
  }

  static number(value: f64): Value {
    const v = new Value();
    v.kind = JsonKind.Number;
    v.n = value;
    return v;
  }

  /** An integer written exactly, beyond the 2^53 an f64 holds. */
  static integer(value: i64): Value {
    const v = new Value();
    v.kind = JsonKind.Number;
    v.n = <f64>value;
    v.i = value;
    v.exact = true;
    return v;
  }

  static string(value: string): Value {
    const v = new Value();
    v.kind = JsonKind.String;
    v.s = value;
    return v;
  }

  static array(): Value {
    const v = new Value();
    v.kind = JsonKind.Array;
    v.items = new Array<Value>();
    return v;
  }

  static object(): Value {
    const v = new Value();
    v.kind = JsonKind.Object;
    v.items = new Array<Value>();
    v.names = new Array<string>();
    return v;
  }

  /** A string value, or null for a null string. */
  static stringOrNull(value: string | null): Value {
    return value === null ? Value.null() : Value.string(value);
  }

  // ---- kind ---------------------------------------------------------------------------------------

  isNull(): bool {
    return this.kind == JsonKind.Null;
  }
  isBool(): bool {
    return this.kind == JsonKind.Bool;
  }
  isNumber(): bool {
    return this.kind == JsonKind.Number;
  }
  isString(): bool {
    return this.kind == JsonKind.String;
  }
  isArray(): bool {
    return this.kind == JsonKind.Array;
  }
  isObject(): bool {
    return this.kind == JsonKind.Object;
  }
  /** A number with no fraction (1, -3, 2e3). */
  isInteger(): bool {
    return this.kind == JsonKind.Number && (this.exact || (isFinite(this.n) && Math.floor(this.n) == this.n));
  }

  // ---- scalars (abort on another kind: check with is...() or use the get...() fallbacks) -------------

  asBool(): bool {
    this.expect(JsonKind.Bool, 'a boolean');
    return this.b;
  }

  asNumber(): f64 {
    this.expect(JsonKind.Number, 'a number');
    return this.n;
  }

  /** The integer (exact when parsed or built as one; otherwise the number truncated). */
  asInteger(): i64 {
    this.expect(JsonKind.Number, 'a number');
    return this.exact ? this.i : <i64>this.n;
  }

  asI32(): i32 {
    return <i32>this.asInteger();
  }

  asString(): string {
    this.expect(JsonKind.String, 'a string');
    return this.s;
  }

  // ---- arrays and objects -------------------------------------------------------------------------

  /** Items of an array or members of an object; 0 for anything else. */
  get length(): i32 {
    if (this.kind == JsonKind.Array) return this.items.length;
    if (this.kind == JsonKind.Object) return this.names.length;
    return 0;
  }

  /** The array item at i (aborts when out of range). */
  at(i: i32): Value {
    this.expect(JsonKind.Array, 'an array');
    if (i < 0 || i >= this.items.length) abort('Value.at: index out of range');
    return this.items[i];
  }

  push(item: Value): Value {
    this.expect(JsonKind.Array, 'an array');
    this.items.push(item);
    return this;
  }

  /** The array's items (a copy). */
  toArray(): Array<Value> {
    this.expect(JsonKind.Array, 'an array');
    return this.items.slice(0);
  }

  /** The object's member names in order (a copy). */
  keys(): Array<string> {
    this.expect(JsonKind.Object, 'an object');
    return this.names.slice(0);
  }

  has(key: string): bool {
    return this.kind == JsonKind.Object && this.find(key) >= 0;
  }

  /** The member's value, or null when this is not an object or has no such member. */
  get(key: string): Value | null {
    if (this.kind != JsonKind.Object) return null;
    const at = this.find(key);
    return at < 0 ? null : this.items[at];
  }

  /** Sets a member (replacing its value in place when present); answers this object, for chaining. */
  set(key: string, value: Value): Value {
    this.expect(JsonKind.Object, 'an object');
    const at = this.find(key);
    if (at >= 0) {
      this.items[at] = value;
      return this;
    }
    const index = this.index;
    if (index !== null) index.set(key, this.names.length);
    this.names.push(key);
    this.items.push(value);
    if (index === null && this.names.length > INDEX_FROM) this.reindex();
    return this;
  }

  setString(key: string, value: string): Value {
    return this.set(key, Value.string(value));
  }
  setNumber(key: string, value: f64): Value {
    return this.set(key, Value.number(value));
  }
  setInteger(key: string, value: i64): Value {
    return this.set(key, Value.integer(value));
  }
  setBool(key: string, value: bool): Value {
    return this.set(key, Value.bool(value));
  }
  setNull(key: string): Value {
    return this.set(key, Value.null());
  }

  /** Removes a member; answers whether it was there. */
  remove(key: string): bool {
    if (this.kind != JsonKind.Object) return false;
    const at = this.find(key);
    if (at < 0) return false;
    this.names.splice(at, 1);
    this.items.splice(at, 1);
    if (this.index !== null) this.reindex();
    return true;
  }

  /** The member's position, or -1: a linear search while the object is small, a map beyond. */
  private find(key: string): i32 {
    const index = this.index;
    if (index !== null) return index.has(key) ? index.get(key) : -1;
    const names = this.names;
    for (let k = 0, n = names.length; k < n; k++) if (unchecked(names[k]) == key) return k;
    return -1;
  }

  private reindex(): void {
    const index = new Map<string, i32>();
    for (let k = 0; k < this.names.length; k++) index.set(this.names[k], k);
    this.index = index;
  }

  /** The member's text, or the fallback when it is absent or not a string. */
  getString(key: string, fallback: string = ''): string {
    const v = this.get(key);
    return v !== null && v.kind == JsonKind.String ? v.s : fallback;
  }

  /** The member's text, or null when it is absent or not a string. */
  getStringOrNull(key: string): string | null {
    const v = this.get(key);
    return v !== null && v.kind == JsonKind.String ? v.s : null;
  }

  getNumber(key: string, fallback: f64 = 0): f64 {
    const v = this.get(key);
    return v !== null && v.kind == JsonKind.Number ? v.n : fallback;
  }

  getInteger(key: string, fallback: i64 = 0): i64 {
    const v = this.get(key);
    return v !== null && v.kind == JsonKind.Number ? v.asInteger() : fallback;
  }

  getBool(key: string, fallback: bool = false): bool {
    const v = this.get(key);
    return v !== null && v.kind == JsonKind.Bool ? v.b : fallback;
  }

  /** The member when it is an object, else null. */
  getObject(key: string): Value | null {
    const v = this.get(key);
    return v !== null && v.kind == JsonKind.Object ? v : null;
  }

  /** The member when it is an array, else null. */
  getArray(key: string): Value | null {
    const v = this.get(key);
    return v !== null && v.kind == JsonKind.Array ? v : null;
  }

  /** The value at a JSON Pointer (RFC 6901: "" is this value, "/a/0/b~1c"), or null. */
  pointer(path: string): Value | null {
    if (path.length == 0) return this;
    if (path.charCodeAt(0) != 0x2f) return null;
    const tokens = path.substring(1).split('/');
    let current: Value = this;
    for (let t = 0; t < tokens.length; t++) {
      const token = tokens[t].replaceAll('~1', '/').replaceAll('~0', '~');
      if (current.kind == JsonKind.Object) {
        const next = current.get(token);
        if (next === null) return null;
        current = next;
      } else if (current.kind == JsonKind.Array) {
        const i = arrayIndex(token);
        if (i < 0 || i >= current.items.length) return null;
        current = current.items[i];
      } else {
        return null;
      }
    }
    return current;
  }

  /** Structural equality: numbers by value, objects regardless of member order. */
  equals(other: Value): bool {
    if (this.kind != other.kind) return false;
    switch (this.kind) {
      case JsonKind.Null:
        return true;
      case JsonKind.Bool:
        return this.b == other.b;
      case JsonKind.Number:
        return this.exact && other.exact ? this.i == other.i : this.n == other.n;
      case JsonKind.String:
        return this.s == other.s;
      case JsonKind.Array: {
        if (this.items.length != other.items.length) return false;
        for (let k = 0; k < this.items.length; k++) if (!this.items[k].equals(other.items[k])) return false;
        return true;
      }
      default: {
        if (this.names.length != other.names.length) return false;
        for (let k = 0; k < this.names.length; k++) {
          const theirs = other.get(this.names[k]);
          if (theirs === null || !this.items[k].equals(theirs)) return false;
        }
        return true;
      }
    }
  }

  /** The JSON text of this value. */
  toString(): string {
    const out = new Array<string>();
    write(this, out);
    return out.join('');
  }

  private expect(kind: JsonKind, what: string): void {
    if (this.kind != kind) abort('JSON value is not ' + what);
  }

  // Read by the serializer and the parser in this file.
  @inline rawBool(): bool {
    return this.b;
  }
  @inline rawNumber(): f64 {
    return this.n;
  }
  @inline isExact(): bool {
    return this.exact;
  }
  @inline rawInteger(): i64 {
    return this.i;
  }
  @inline rawString(): string {
    return this.s;
  }
  @inline rawItems(): Array<Value> {
    return this.items;
  }
  @inline rawNames(): Array<string> {
    return this.names;
  }
}

/** A canonical array index ("0", "17"; not "01" or "-1"), or -1. */
function arrayIndex(token: string): i32 {
  if (token.length == 0 || token.length > 9) return -1;
  if (token.length > 1 && token.charCodeAt(0) == 0x30) return -1;
  let n = 0;
  for (let k = 0; k < token.length; k++) {
    const c = token.charCodeAt(k);
    if (c < 0x30 || c > 0x39) return -1;
    n = n * 10 + (c - 0x30);
  }
  return n;
}
