// Names (app, install, action, secret), semantic versions and JSON Pointers as the platform reads them. Pure.
import semver from 'semver';

const NAME = /^[a-z0-9][a-z0-9-]{0,99}$/;
/** Route segments beside /apps/:name and /app-installs/:name, so no app or install may take them. */
export const RESERVED_NAMES: readonly string[] = ['approvals', 'health', 'metering', 'uploads'];

/** An install, app or module name; reserved names are refused only for apps and installs. */
export function nameProblem(value: string, kind: 'app' | 'install' | 'module'): string | null {
  if (!NAME.test(value)) {
    return 'expected 1 to 100 lower-case letters, digits and hyphens, the first a letter or digit';
  }
  if (kind !== 'module' && RESERVED_NAMES.includes(value)) return `${value} is a reserved name`;
  return null;
}

export const SECRET_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
export const ACTION_NAME = /^[A-Za-z][A-Za-z0-9_]{0,99}$/;

export const MAX_VERSION_LENGTH = 50;
// Three integers and an optional prerelease of letters, digits, dots and hyphens: no build metadata
// (+...), which semantic versioning ignores in precedence and so would make two spellings of one version.
const VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

export function versionProblem(value: string): string | null {
  if (value.length > MAX_VERSION_LENGTH) return `a version has at most ${MAX_VERSION_LENGTH} characters`;
  // semver refuses what the pattern lets through: leading zeros, empty prerelease identifiers.
  if (!VERSION.test(value) || semver.valid(value) !== value) {
    return 'expected a semantic version: three integers and an optional -prerelease suffix';
  }
  return null;
}

export const MAX_POINTER_LENGTH = 200;

/** A JSON Pointer (RFC 6901) of at most 200 characters starting with "/". */
export function pointerProblem(value: string): string | null {
  if (!value.startsWith('/')) return 'a JSON Pointer starts with /';
  if (value.length > MAX_POINTER_LENGTH) return `a JSON Pointer has at most ${MAX_POINTER_LENGTH} characters`;
  if (/~(?![01])/.test(value)) return 'in a JSON Pointer ~ is followed by 0 or 1';
  return null;
}

/** The reference tokens of a valid pointer, unescaped. */
export function pointerTokens(pointer: string): string[] {
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}
