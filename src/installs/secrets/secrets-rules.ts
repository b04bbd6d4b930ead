// Which secrets an install may store and which it needs (docs/installs.md; at most 20 secret variables in
// a config). Every rule reads the config as saved: no schema defaults are filled in.
// Pure: names in, names and issues out; of a value only its length is read (secretValueIssue).
import { type Manifest, type RequiredWhenCondition, SECRET_NAME } from '../../module/index.ts';
import { MIN_REDACTED_LENGTH } from '../../runner/index.ts';
import { type ConfigIssue, childPointer, forEachText, valueAt } from '../config-pointers.ts';

export const MAX_SECRET_VARIABLES = 20;
export const STEP_PLACES: readonly string[] = ['path', 'query', 'headers', 'body'];

/** What of a manifest the secret rules read. */
export type SecretsManifest = Pick<Manifest, 'secrets' | 'secretsFromConfig'>;

/** `{{secret:NAME}}` as the runner tags it in config text (src/runner/envelope.ts): a secret name only. */
const REFERENCE = new RegExp(`\\{\\{secret:(${SECRET_NAME.source.slice(1, -1)})\\}\\}`, 'g');

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const unique = (names: Iterable<string>) => [...new Set(names)];

/** One item of the secretsFromConfig array as the secret rules read it. */
interface Variable {
  index: number;
  key: unknown;
  secret: boolean;
  item: Record<string, unknown>;
}

/** The items of the config's secret-variable array that are objects; none when the manifest has none. */
function variablesOf(manifest: SecretsManifest, config: unknown): Variable[] {
  if (manifest.secretsFromConfig === undefined) return [];
  const list = valueAt(config, manifest.secretsFromConfig);
  if (!Array.isArray(list)) return [];
  const variables: Variable[] = [];
  list.forEach((item: unknown, index) => {
    if (isRecord(item)) variables.push({ index, key: item.key, secret: item.secret === true, item });
  });
  return variables;
}

/** Keys of the config's secret variables (secret: true) that are secret names, each once. */
function secretVariableKeys(manifest: SecretsManifest, config: unknown): string[] {
  return unique(
    variablesOf(manifest, config)
      .filter((v) => v.secret && typeof v.key === 'string' && SECRET_NAME.test(v.key))
      .map((v) => v.key as string),
  );
}

/** Every `{{secret:NAME}}` of the config's text, with the pointer of the text holding it. */
function referencesOf(config: unknown): { name: string; path: string }[] {
  const found: { name: string; path: string }[] = [];
  forEachText(config, (text, path) => {
    for (const match of text.matchAll(REFERENCE)) found.push({ name: match[1] as string, path });
  });
  return found;
}

function collectTexts(config: unknown): string[] {
  const texts: string[] = [];
  forEachText(config, (text) => {
    texts.push(text);
  });
  return texts;
}

/**
 * Whether a requiredWhen condition holds under the config: the value at its pointer is one of `in`
 * (compared strictly: "1" is not 1), or, without `in`, the config holds a value there that is not
 * null or empty text.
 */
export function conditionHolds(condition: RequiredWhenCondition, config: unknown): boolean {
  const value = valueAt(config, condition.config);
  if (condition.in !== undefined) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return false;
    return condition.in.some((candidate) => candidate === value);
  }
  return value !== undefined && value !== null && value !== '';
}

/**
 * Names a value can be stored under: the manifest's secrets, then the keys of the config's secret
 * variables, each once.
 */
export function storableSecrets(manifest: SecretsManifest, config: unknown): string[] {
  return unique([...manifest.secrets.map((s) => s.name), ...secretVariableKeys(manifest, config)]);
}

/**
 * The secrets the install needs under the config, each once: every manifest secret without requiredWhen
 * or with a condition that holds; every secret variable used as <<key>> in config text or with non-empty
 * stepPlaces; every name a `{{secret:NAME}}` in config text refers to.
 */
export function requiredSecrets(manifest: SecretsManifest, config: unknown): string[] {
  const required: string[] = [];
  for (const secret of manifest.secrets) {
    const conditions = secret.requiredWhen;
    if (conditions === undefined || conditions.some((condition) => conditionHolds(condition, config))) {
      required.push(secret.name);
    }
  }
  const texts = collectTexts(config);
  for (const v of variablesOf(manifest, config)) {
    if (!v.secret || typeof v.key !== 'string' || !SECRET_NAME.test(v.key)) continue;
    const placeholder = `<<${v.key}>>`;
    const placed = Array.isArray(v.item.stepPlaces) && v.item.stepPlaces.length > 0;
    if (placed || texts.some((text) => text.includes(placeholder))) required.push(v.key);
  }
  for (const reference of referencesOf(config)) required.push(reference.name);
  return unique(required);
}

/**
 * An issue for each `{{secret:NAME}}` in config text naming no storable secret, at the pointer of the text
 * holding it (one per name and text).
 */
export function checkSecretReferences(manifest: SecretsManifest, config: unknown): ConfigIssue[] {
  const declared = new Set(storableSecrets(manifest, config));
  const issues: ConfigIssue[] = [];
  const seen = new Set<string>();
  for (const { name, path } of referencesOf(config)) {
    const once = `${path}\u0000${name}`;
    if (declared.has(name) || seen.has(once)) continue;
    seen.add(once);
    issues.push({
      path,
      message: `{{secret:${name}}} names a secret neither the app nor the config's secret variables declare`,
    });
  }
  return issues;
}

/**
 * Issues of the config's secret-variable array (the manifest's secretsFromConfig): at most 20; each an
 * object whose key is a secret name, used once; a secret variable holds no value; stepPlaces only on
 * secret variables and only path, query, headers, body, each once. An absent or null array has none.
 */
export function checkSecretVariables(manifest: SecretsManifest, config: unknown): ConfigIssue[] {
  const pointer = manifest.secretsFromConfig;
  if (pointer === undefined) return [];
  const list = valueAt(config, pointer);
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) return [{ path: pointer, message: 'expected an array of variables' }];

  const issues: ConfigIssue[] = [];
  if (list.length > MAX_SECRET_VARIABLES) {
    issues.push({ path: pointer, message: `a config holds at most ${MAX_SECRET_VARIABLES} variables` });
  }
  const keys = new Set<string>();
  list.forEach((item: unknown, index) => {
    const at = childPointer(pointer, index);
    if (!isRecord(item)) {
      issues.push({ path: at, message: 'a variable is an object { key, value?, secret?, stepPlaces? }' });
      return;
    }
    const key = item.key;
    if (typeof key !== 'string' || !SECRET_NAME.test(key)) {
      issues.push({
        path: childPointer(at, 'key'),
        message: 'key is a letter followed by up to 63 letters, digits or underscores',
      });
    } else if (keys.has(key)) {
      issues.push({ path: childPointer(at, 'key'), message: `key ${key} is used by another variable` });
    } else {
      keys.add(key);
    }
    if (item.secret !== undefined && typeof item.secret !== 'boolean') {
      issues.push({ path: childPointer(at, 'secret'), message: 'secret is true or false' });
    }
    const secret = item.secret === true;
    if (secret && item.value !== undefined && item.value !== null) {
      issues.push({
        path: childPointer(at, 'value'),
        message: 'a secret variable holds no value in config: store it as a secret',
      });
    }
    if (item.stepPlaces !== undefined) {
      const problem = secret
        ? stepPlacesProblem(item.stepPlaces)
        : 'stepPlaces are allowed only on secret variables';
      if (problem) issues.push({ path: childPointer(at, 'stepPlaces'), message: problem });
    }
  });
  return issues;
}

function stepPlacesProblem(places: unknown): string | null {
  if (!Array.isArray(places) || places.some((place) => !STEP_PLACES.includes(place as string))) {
    return `stepPlaces is a list of ${STEP_PLACES.join(', ')}`;
  }
  if (new Set(places).size !== places.length) return 'stepPlaces names each place once';
  return null;
}

/** A version that may declare a secret: its manifest, and the config its secret variables are read from. */
export interface DeclaringVersion {
  manifest: SecretsManifest;
  /** Absent: only the manifest's secrets count. */
  config?: unknown;
}

export interface StoreContext {
  /** The version the install runs, with the install's config. */
  installed: DeclaringVersion;
  /** The app's published versions (of the install's publisher). */
  published: readonly DeclaringVersion[];
  /** The version the install's last automatic upgrade left, if any. */
  upgradedFrom?: DeclaringVersion | null;
  /** The install change awaiting approval, with the version and config it asks for. */
  pendingChange?: DeclaringVersion | null;
}

const declares = (version: DeclaringVersion, name: string) =>
  storableSecrets(version.manifest, version.config).includes(name);

/**
 * Whether a value may be stored under `name`: the installed version declares it under the config, a
 * published version of the app declares it, the version the last automatic upgrade left declares it, or
 * the change awaiting approval declares it. Any other name is refused (400).
 */
export function mayStoreSecret(name: string, context: StoreContext): boolean {
  if (!SECRET_NAME.test(name)) return false;
  const versions = [context.installed, ...context.published, context.upgradedFrom, context.pendingChange];
  return versions.some((version) => version != null && declares(version, name));
}

/**
 * Why a value may not be stored as a secret, at /value, or null. The runner finds a secret in answers and
 * logs by its value; a value shorter than MIN_REDACTED_LENGTH would match ordinary text, so it is neither
 * redacted nor filled, and is refused here rather than stored unusable.
 */
export function secretValueIssue(value: string): ConfigIssue | null {
  if (value.length >= MIN_REDACTED_LENGTH) return null;
  return {
    path: '/value',
    message: `a secret is at least ${MIN_REDACTED_LENGTH} characters: a shorter value could not be told apart from ordinary text, so it could not be redacted`,
  };
}
