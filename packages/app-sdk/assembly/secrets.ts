// Secret placeholders (docs/module-contract.md). A module never sees a secret's value: it writes
// {{secret:NAME:TAG}}, TAG being the call's secretTag, where the host should fill it in (http_request
// url, header values, body and auth; hmac keys; the ai apiKey). Config text written {{secret:NAME}} by
// the install's owner reaches the module already tagged; text the module did not write with the tag
// (input, webhook bodies, vendor answers) cannot name a secret.
import { Value } from './json';

/** The placeholder the host fills with secret NAME during the call whose tag is TAG. */
export function secretPlaceholder(name: string, tag: string): string {
  return '{{secret:' + name + ':' + tag + '}}';
}

function isNameChar(c: i32, first: bool): bool {
  const letter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  return first ? letter : letter || (c >= 0x30 && c <= 0x39) || c == 0x5f;
}

/** A secret name: a letter followed by up to 63 letters, digits or underscores. */
export function isSecretName(name: string): bool {
  if (name.length < 1 || name.length > 64) return false;
  for (let k = 0; k < name.length; k++) if (!isNameChar(name.charCodeAt(k), k == 0)) return false;
  return true;
}

/** Names of the secrets text refers to with this call's tag ({{secret:NAME:TAG}}), in order, each once. */
export function secretNamesIn(text: string, tag: string): Array<string> {
  const names = new Array<string>();
  const open = '{{secret:';
  const close = ':' + tag + '}}';
  let from = 0;
  while (true) {
    const at = text.indexOf(open, from);
    if (at < 0) break;
    const nameStart = at + open.length;
    const end = text.indexOf(close, nameStart);
    from = nameStart;
    if (end < 0) break;
    const name = text.substring(nameStart, end);
    if (isSecretName(name)) {
      if (!names.includes(name)) names.push(name);
      from = end + close.length;
    }
  }
  return names;
}

/** Every secret the config's text refers to (tagged by the host), each once. */
export function configSecretNames(config: Value, tag: string): Array<string> {
  const names = new Array<string>();
  collect(config, tag, names);
  return names;
}

function collect(value: Value, tag: string, names: Array<string>): void {
  if (value.isString()) {
    const found = secretNamesIn(value.asString(), tag);
    for (let k = 0; k < found.length; k++) if (!names.includes(found[k])) names.push(found[k]);
  } else if (value.isArray()) {
    for (let k = 0; k < value.length; k++) collect(value.at(k), tag, names);
  } else if (value.isObject()) {
    const keys = value.keys();
    for (let k = 0; k < keys.length; k++) collect(value.get(keys[k])!, tag, names);
  }
}

/**
 * One item of the config array the manifest's secretsFromConfig points at: { key, value?, secret?,
 * stepPlaces? }. A secret variable holds no value in config; the install stores it as a secret named
 * by its key, and the module sends its placeholder.
 */
export class Variable {
  key: string = '';
  value: string | null = null;
  secret: bool = false;
  /** Where a secret variable may be placed: any of path, query, headers, body. */
  stepPlaces: Array<string> = [];

  /** What to send for <<key>>: the value, or the secret's placeholder for this call. */
  text(tag: string): string {
    if (this.secret) return secretPlaceholder(this.key, tag);
    const value = this.value;
    return value === null ? '' : value;
  }

  placedIn(place: string): bool {
    return this.stepPlaces.includes(place);
  }
}

/** The variables of the config array at pointer (empty when there is none). */
export function readVariables(config: Value, pointer: string): Array<Variable> {
  const out = new Array<Variable>();
  const list = config.pointer(pointer);
  if (list === null || !list.isArray()) return out;
  for (let k = 0; k < list.length; k++) {
    const item = list.at(k);
    if (!item.isObject()) continue;
    const v = new Variable();
    v.key = item.getString('key');
    v.value = item.getStringOrNull('value');
    v.secret = item.getBool('secret');
    const places = item.getArray('stepPlaces');
    if (places !== null) {
      for (let p = 0; p < places.length; p++)
        if (places.at(p).isString()) v.stepPlaces.push(places.at(p).asString());
    }
    if (v.key.length > 0) out.push(v);
  }
  return out;
}

/** Replaces each <<key>> of a known variable with its text for this call; other text stays. */
export function expandVariables(template: string, variables: Array<Variable>, tag: string): string {
  let out = template;
  for (let k = 0; k < variables.length; k++) {
    const v = variables[k];
    out = out.replaceAll('<<' + v.key + '>>', v.text(tag));
  }
  return out;
}
