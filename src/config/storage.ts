// Where uploaded modules and subjects' documents are kept: MODULE_STORAGE and the STORAGE_* settings.
import path from 'node:path';
import { HTTP_SCHEMES, type Reader } from './reader.ts';

export type StorageSettings =
  | { kind: 'filesystem'; dir: string }
  | {
      kind: 's3';
      endpoint: string;
      bucket: string;
      region: string;
      /** Both null: the AWS SDK's default credential chain (AWS_* variables, shared files, instance roles). */
      accessKeyId: string | null;
      secretAccessKey: string | null;
      forcePathStyle: boolean;
      /** Prepended to `<sha256>.wasm`: empty, or ends with `/`. */
      prefix: string;
      /** Prepended to `<tenantId>/<documentId>` (docs/documents.md): empty, or ends with `/`. */
      documentsPrefix: string;
    }
  | { kind: 'off' };

const STORAGE_KINDS = ['filesystem', 's3', 'off'] as const;
/** The S3 settings that mean nothing without STORAGE_ENDPOINT. */
const S3_ONLY = [
  'STORAGE_BUCKET',
  'STORAGE_REGION',
  'STORAGE_ACCESS_KEY_ID',
  'STORAGE_SECRET_ACCESS_KEY',
  'STORAGE_FORCE_PATH_STYLE',
  'STORAGE_PREFIX',
  'STORAGE_DOCUMENTS_PREFIX',
] as const;
/** Bucket names as S3 and its look-alikes take them (legacy names included); no scheme, slash or space. */
const BUCKET = /^[A-Za-z0-9][A-Za-z0-9._-]{1,253}[A-Za-z0-9]$/;
const REGION = /^[A-Za-z0-9_-]{1,64}$/;
/** Path segments of S3's safe key characters; `.` and `..` segments are refused. */
const PREFIX_SEGMENT = /^[A-Za-z0-9!_.*'()-]+$/;

/**
 * MODULE_STORAGE (filesystem, s3 or off) and the STORAGE_* settings. Unset, the kind follows
 * STORAGE_ENDPOINT: s3 when it is set, else filesystem. An S3 setting given without STORAGE_ENDPOINT
 * is refused (modules would silently stay on the local disk), unless MODULE_STORAGE says so explicitly.
 * Secret values are never echoed.
 */
export function readStorage(read: Reader, dataDir: string): StorageSettings {
  const chosen = read.text('MODULE_STORAGE');
  if (chosen !== null && !(STORAGE_KINDS as readonly string[]).includes(chosen)) {
    read.problems.push(`MODULE_STORAGE: expected one of ${STORAGE_KINDS.join(', ')}, got "${chosen}"`);
  }
  const endpointGiven = read.text('STORAGE_ENDPOINT') !== null;
  const endpoint = read.url('STORAGE_ENDPOINT', HTTP_SCHEMES);
  if (endpoint !== null) {
    const url = new URL(endpoint);
    if (url.username || url.password) {
      read.problems.push(
        'STORAGE_ENDPOINT: must not carry credentials; use STORAGE_ACCESS_KEY_ID and STORAGE_SECRET_ACCESS_KEY',
      );
    }
    if (url.search || url.hash) read.problems.push('STORAGE_ENDPOINT: must have no query or fragment');
  }
  const bucket = read.text('STORAGE_BUCKET');
  if (bucket !== null && !BUCKET.test(bucket)) {
    read.problems.push(
      `STORAGE_BUCKET: expected a bucket name (3 to 255 letters, digits, dots, hyphens, underscores), got "${bucket}"`,
    );
  }
  const region = read.text('STORAGE_REGION') ?? 'us-east-1';
  if (!REGION.test(region)) {
    read.problems.push(`STORAGE_REGION: expected a region name such as us-east-1, got "${region}"`);
  }
  const accessKeyId = read.text('STORAGE_ACCESS_KEY_ID');
  const secretAccessKey = read.text('STORAGE_SECRET_ACCESS_KEY');
  if (accessKeyId !== null && secretAccessKey === null) {
    read.problems.push(
      'STORAGE_SECRET_ACCESS_KEY: required with STORAGE_ACCESS_KEY_ID (set both or neither)',
    );
  }
  if (secretAccessKey !== null && accessKeyId === null) {
    read.problems.push(
      'STORAGE_ACCESS_KEY_ID: required with STORAGE_SECRET_ACCESS_KEY (set both or neither)',
    );
  }
  const forcePathStyle = read.oneOf('STORAGE_FORCE_PATH_STYLE', ['true', 'false'], 'true') === 'true';
  const prefix = readPrefix(read, 'STORAGE_PREFIX', 'modules/');
  const documentsPrefix = readPrefix(read, 'STORAGE_DOCUMENTS_PREFIX', 'documents/');

  const kind = (STORAGE_KINDS as readonly string[]).includes(chosen ?? '')
    ? (chosen as (typeof STORAGE_KINDS)[number])
    : endpointGiven
      ? 's3'
      : 'filesystem';
  if (kind === 'filesystem' && chosen === null) {
    for (const name of S3_ONLY) {
      if (read.text(name) !== null) {
        read.problems.push(
          `${name}: set without STORAGE_ENDPOINT (modules would stay on the filesystem); set STORAGE_ENDPOINT or unset ${name}`,
        );
      }
    }
  }
  if (kind === 'off') return { kind: 'off' };
  if (kind === 'filesystem') return { kind: 'filesystem', dir: path.join(dataDir, 'modules') };
  if (!endpointGiven) read.problems.push('MODULE_STORAGE: s3 needs STORAGE_ENDPOINT');
  else if (bucket === null) read.problems.push('STORAGE_BUCKET: required when STORAGE_ENDPOINT is set');
  return {
    kind: 's3',
    endpoint: endpoint ?? '',
    bucket: bucket ?? '',
    region,
    accessKeyId,
    secretAccessKey,
    forcePathStyle,
    prefix,
    documentsPrefix,
  };
}

/** A key prefix (STORAGE_PREFIX, STORAGE_DOCUMENTS_PREFIX): slashes at either end are normalised, and `/` means none. */
function readPrefix(read: Reader, name: string, byDefault: string): string {
  const raw = read.text(name);
  if (raw === null) return byDefault;
  const trimmed = raw.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '';
  const segments = trimmed.split('/');
  if (trimmed.length > 512 || segments.some((s) => !PREFIX_SEGMENT.test(s) || s === '.' || s === '..')) {
    read.problems.push(
      `${name}: expected segments of letters, digits and !-_.*'() separated by /, got "${raw}"`,
    );
    return byDefault;
  }
  return `${trimmed}/`;
}
