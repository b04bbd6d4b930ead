// Redaction of one call's sensitive values before anything the module answered is parsed, logged or
// recorded: secret values → [secret:NAME], values derived from secrets → [auth:TYPE], cached values →
// [cache:NAME], the call's tag → [tag]. A value is found in every spelling of spellings.ts and in any
// letter case, and in a parsed answer also inside strings that are JSON themselves: what the answer
// means is redacted, not one way of writing it.
import { depthExcess } from '../http/json-depth.ts';
import { rewriteStrings } from '../http/json-strings.ts';
import { spellingsOf } from './spellings.ts';

/**
 * Values shorter than this are not redacted: replacing every "abc" in an answer would destroy it. Secrets
 * shorter than this are neither stored (src/installs/secrets/secrets-rules.ts) nor filled
 * (egress/placeholders.ts), and the cache host function refuses shorter values.
 */
export const MIN_REDACTED_LENGTH = 8;

/** How many strings deep a parsed answer is opened where a string holds JSON (a vendor's inside a module's). */
const NESTED_JSON_DEPTH = 3;

/**
 * How deep JSON held in a string may nest and still be opened. Deeper, writing it back would overflow the
 * stack (it did at about 5,000 levels); such an answer is refused whole (NestedTooDeep), since what it
 * means could not be redacted. An app may pass on a vendor's text nested deeper than its own answer may.
 */
export const MAX_NESTED_STRING_DEPTH = 1000;

export class NestedTooDeep extends Error {}

interface Entry {
  /** The spelling lower-cased: matching ignores letter case. */
  folded: string;
  length: number;
  label: string;
}

/** Texts up to this long are scanned position by position; longer ones through one compiled expression. */
const SCAN_MAX_LENGTH = 4096;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/**
 * Finds every spelling in one pass: where a spelling may start (its first MIN_REDACTED_LENGTH characters,
 * any case) is found by a scan of a short text or one compiled expression over a long one, then the
 * longest spelling starting there is taken. The expression stays small however long the values are.
 */
class Matcher {
  readonly #prefixes: Set<string>;
  /** Compiled on the first long text only: most of a call's texts are short, and compiling costs more. */
  #candidates: RegExp | null = null;
  /** Lower-cased prefix → the spellings starting with it, longest first. */
  readonly #buckets = new Map<string, Entry[]>();

  constructor(spellings: ReadonlyMap<string, string>) {
    const prefixes = new Set<string>();
    for (const [spelling, label] of spellings) {
      const prefix = spelling.slice(0, MIN_REDACTED_LENGTH);
      prefixes.add(prefix);
      const key = prefix.toLowerCase();
      const bucket = this.#buckets.get(key) ?? [];
      bucket.push({ folded: spelling.toLowerCase(), length: spelling.length, label });
      this.#buckets.set(key, bucket);
    }
    for (const bucket of this.#buckets.values()) bucket.sort((a, b) => b.length - a.length);
    this.#prefixes = prefixes;
  }

  apply(text: string): string {
    if (this.#buckets.size === 0) return text;
    if (text.length <= SCAN_MAX_LENGTH) return this.#scan(text);
    this.#candidates ??= new RegExp([...this.#prefixes].map(escapeRegExp).join('|'), 'gi');
    const candidates = this.#candidates;
    candidates.lastIndex = 0;
    let out = '';
    let last = 0;
    for (let match = candidates.exec(text); match !== null; match = candidates.exec(text)) {
      const at = match.index;
      const hit = this.#bucketOf(match[0])?.find(
        (entry) => text.slice(at, at + entry.length).toLowerCase() === entry.folded,
      );
      if (hit) {
        out += text.slice(last, at) + hit.label;
        last = at + hit.length;
      }
      candidates.lastIndex = hit ? last : at + 1;
    }
    return last === 0 ? text : out + text.slice(last);
  }

  /**
   * The same matches without the expression: each position's next MIN_REDACTED_LENGTH characters,
   * lower-cased, looked up among the prefixes. It finds every candidate the expression finds (both then
   * check the whole spelling the same way), and is cheaper than compiling the expression for the short
   * texts a call redacts (its answer, its log lines).
   */
  #scan(text: string): string {
    let out = '';
    let last = 0;
    for (let at = 0; at + MIN_REDACTED_LENGTH <= text.length; ) {
      const hit = this.#bucketOf(text.slice(at, at + MIN_REDACTED_LENGTH))?.find(
        (entry) => text.slice(at, at + entry.length).toLowerCase() === entry.folded,
      );
      if (hit) {
        out += text.slice(last, at) + hit.label;
        last = at + hit.length;
        at = last;
      } else at += 1;
    }
    return last === 0 ? text : out + text.slice(last);
  }

  #bucketOf(prefix: string): Entry[] | undefined {
    return this.#buckets.get(prefix.toLowerCase());
  }
}

/** A value registered with a redactor: [value, label, cached]. */
export type RedactionEntry = [value: string, label: string, cached: boolean];

export class Redactor {
  readonly #values = new Set<string>();
  /** Values registered here, in order, for the other side of the call (see takeNew). */
  readonly #journal: RedactionEntry[] = [];
  #shipped = 0;
  /**
   * Values registered and not spelled yet: spelled when a matcher is next built, so a side of a call that
   * never redacts (the main thread of a call that sends no request) never spells the call's tag and secrets.
   */
  readonly #unspelled: RedactionEntry[] = [];
  /** Spelling → label, for every value spelled; the first label given to a spelling wins. */
  readonly #all = new Map<string, string>();
  /** The same without cached values: what a vendor's answer is redacted of before the module reads it. */
  readonly #secrets = new Map<string, string>();
  #allMatcher: Matcher | null = null;
  #secretsMatcher: Matcher | null = null;
  #bytesMatcher: Matcher | null = null;

  /** Registers a value under its label, in every spelling. */
  add(value: string, label: string, cached = false): void {
    if (this.#register(value, label, cached)) this.#journal.push([value, label, cached]);
  }

  /**
   * The values registered here since the last time, for the other side of the call: the sandbox thread
   * redacts what the module writes, the main thread what vendors answer, and each registers values the
   * other must know (a derived credential, a cached value set).
   */
  takeNew(): RedactionEntry[] {
    const entries = this.#journal.slice(this.#shipped);
    this.#shipped = this.#journal.length;
    return entries;
  }

  /** Registers the other side's values; takeNew does not hand them back. */
  receive(entries: readonly RedactionEntry[]): void {
    for (const [value, label, cached] of entries) this.#register(value, label, cached);
  }

  #register(value: string, label: string, cached: boolean): boolean {
    // Values, not spellings: a value may be another's spelling (its lower case) and still needs its own.
    if (value.length < MIN_REDACTED_LENGTH || this.#values.has(value)) return false;
    this.#values.add(value);
    this.#unspelled.push([value, label, cached]);
    this.#allMatcher = null;
    if (!cached) {
      this.#secretsMatcher = null;
      this.#bytesMatcher = null;
    }
    return true;
  }

  /**
   * One of the spelling maps, once the values registered since the last matcher was built are spelled
   * into both, in the order they came.
   */
  #spelled(spellings: Map<string, string>): Map<string, string> {
    for (const [value, label, cached] of this.#unspelled.splice(0)) {
      for (const spelling of spellingsOf(value)) {
        if (spelling.length < MIN_REDACTED_LENGTH) continue;
        if (!this.#all.has(spelling)) this.#all.set(spelling, label);
        if (!cached && !this.#secrets.has(spelling)) this.#secrets.set(spelling, label);
      }
    }
    return spellings;
  }

  secret(name: string, value: string): void {
    this.add(value, `[secret:${name}]`);
  }

  derived(type: string, value: string): void {
    this.add(value, `[auth:${type}]`);
  }

  /** A cached value: the module had it in clear, so only what the module answers is redacted of it. */
  cached(name: string, value: string): void {
    this.add(value, `[cache:${name}]`, true);
  }

  tag(tag: string): void {
    this.add(tag, '[tag]');
  }

  /** Replaces every registered value in any of its spellings, longest first. */
  apply(text: string): string {
    this.#allMatcher ??= new Matcher(this.#spelled(this.#all));
    return this.#allMatcher.apply(text);
  }

  /**
   * Replaces secrets, values derived from them and the tag, but not cached values: for a vendor's answer
   * before the module reads it (the module never had a secret, but uses the cached values it keeps).
   */
  applySecrets(text: string): string {
    this.#secretsMatcher ??= new Matcher(this.#spelled(this.#secrets));
    return this.#secretsMatcher.apply(text);
  }

  /**
   * applySecrets over bytes (a vendor body that is not UTF-8), read one character a byte: each spelling as
   * its UTF-8 bytes, and as Latin-1 bytes where it has them (how a header value travels).
   */
  applySecretsToBytes(bytes: Buffer): Buffer {
    this.#bytesMatcher ??= new Matcher(byteSpellings(this.#spelled(this.#secrets)));
    const text = bytes.toString('latin1');
    const out = this.#bytesMatcher.apply(text);
    return out === text ? bytes : Buffer.from(out, 'latin1');
  }

  /**
   * Redacts a parsed answer: every string and member name, and inside strings that hold JSON (up to three
   * levels) what that JSON means, whatever escapes it was written with. Walks without recursion, so an
   * answer of any depth is read; JSON in a string nested past MAX_NESTED_STRING_DEPTH throws NestedTooDeep.
   * Changes the value in place; answers the redacted value.
   */
  applyDeep(value: unknown): unknown {
    return redactTree(value, (text) => this.apply(text), NESTED_JSON_DEPTH);
  }
}

/** Spellings as strings of one character a byte (Latin-1), for matching bytes. */
function byteSpellings(spellings: ReadonlyMap<string, string>): Map<string, string> {
  const bytes = new Map<string, string>();
  for (const [spelling, label] of spellings) {
    const utf8 = Buffer.from(spelling, 'utf8').toString('latin1');
    if (!bytes.has(utf8)) bytes.set(utf8, label);
    // Below U+0100 every character is one Latin-1 byte.
    const latin1 = [...spelling].every((char) => (char.codePointAt(0) as number) <= 0xff);
    if (latin1 && !bytes.has(spelling)) bytes.set(spelling, label);
  }
  return bytes;
}

/** Whether a string may hold JSON worth opening: an object, an array or a string. */
const mayBeJson = (text: string) => /^\s*[[{"]/.test(text);

function redactTree(root: unknown, redact: (text: string) => string, nested: number): unknown {
  const redactString = (text: string): string => {
    const out = redact(text);
    if (nested === 0 || !mayBeJson(out)) return out;
    if (depthExcess(out, MAX_NESTED_STRING_DEPTH) !== null) throw new NestedTooDeep();
    let inner: unknown;
    try {
      inner = JSON.parse(out);
    } catch {
      return out;
    }
    const before = JSON.stringify(inner);
    const after = JSON.stringify(redactTree(inner, redact, nested - 1));
    return after === before ? out : after;
  };
  return rewriteStrings(root, redactString);
}
