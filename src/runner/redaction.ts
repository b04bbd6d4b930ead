// Redaction of one call's sensitive values before anything the module answered is parsed, logged or
// recorded: secret values → [secret:NAME], values derived from secrets → [auth:TYPE], cached values →
// [cache:NAME], the call's tag → [tag].

/** Values shorter than this are not redacted: replacing every "a" in an answer would destroy it. */
export const MIN_REDACTED_LENGTH = 4;

export class Redactor {
  readonly #labels = new Map<string, string>();

  /** Registers a value under its label; the first label given to a value wins. */
  add(value: string, label: string): void {
    if (value.length < MIN_REDACTED_LENGTH || this.#labels.has(value)) return;
    this.#labels.set(value, label);
    // A value may also travel JSON-escaped inside an answer; redact that spelling too.
    const escaped = JSON.stringify(value).slice(1, -1);
    if (escaped !== value && !this.#labels.has(escaped)) this.#labels.set(escaped, label);
  }

  secret(name: string, value: string): void {
    this.add(value, `[secret:${name}]`);
  }

  derived(type: string, value: string): void {
    this.add(value, `[auth:${type}]`);
  }

  cached(name: string, value: string): void {
    this.add(value, `[cache:${name}]`);
  }

  tag(tag: string): void {
    this.add(tag, '[tag]');
  }

  /** Replaces every registered value, longest first so a value inside another is not half-replaced. */
  apply(text: string): string {
    if (this.#labels.size === 0) return text;
    const values = [...this.#labels.keys()].sort((a, b) => b.length - a.length);
    let out = text;
    for (const value of values) out = out.split(value).join(this.#labels.get(value) as string);
    return out;
  }
}
