// S3ModuleStorage against an S3-compatible double on loopback (the outside world), built from the
// settings the way the api builds it.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import {
  createModuleStorage,
  FilesystemModuleStorage,
  type ModuleStorage,
  S3ModuleStorage,
} from '../../src/storage/index.ts';
import { freePort } from '../support/free-port.ts';
import { type S3Double, startS3Double } from './s3-double.ts';

const BUCKET = 'platform-modules';
const ACCESS_KEY_ID = 'AKIDPLATFORMTEST';
const SECRET = 'never-shown-secret-access-key';
/** A minimal module: the WebAssembly header and a few bytes so that each test has its own hash. */
const moduleBytes = (tag: string) =>
  new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...Buffer.from(tag)]);
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

let double: S3Double;
const opened: ModuleStorage[] = [];

function s3Storage(env: Record<string, string> = {}, endpoint = double.endpoint): S3ModuleStorage {
  const storage = createModuleStorage(
    loadConfig(
      {
        STORAGE_ENDPOINT: endpoint,
        STORAGE_BUCKET: BUCKET,
        STORAGE_REGION: 'eu-central-1',
        STORAGE_ACCESS_KEY_ID: ACCESS_KEY_ID,
        STORAGE_SECRET_ACCESS_KEY: SECRET,
        ...env,
      },
      '/srv/platform',
    ),
  );
  if (!(storage instanceof S3ModuleStorage)) throw new Error('expected an S3 module storage');
  opened.push(storage);
  return storage;
}

const objects = () => double.buckets.get(BUCKET) ?? new Map();
const requestsFor = (key: string) => double.requests.filter((r) => r.key === key);

beforeAll(async () => {
  double = await startS3Double([BUCKET, 'other-bucket']);
});
afterEach(() => {
  for (const storage of opened.splice(0)) storage.close?.();
});
afterAll(async () => double?.close());

describe('S3ModuleStorage', () => {
  it('stores a module and reads the same bytes back under its sha256', async () => {
    const bytes = moduleBytes('round-trip');
    const storage = s3Storage();
    const hash = await storage.put(bytes);
    expect(hash).toBe(sha256(bytes));
    const read = await storage.get(hash);
    expect(read).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(read ?? [])).toEqual(Buffer.from(bytes));
    // Another client with the same settings (another api instance) reads it too.
    expect(Buffer.from((await s3Storage().get(hash)) ?? [])).toEqual(Buffer.from(bytes));
  });

  it('keeps modules at <prefix><sha256>.wasm, typed application/wasm, with their SHA-256 checksum', async () => {
    const bytes = moduleBytes('layout');
    const hash = await s3Storage().put(bytes);
    const key = `modules/${hash}.wasm`;
    const stored = objects().get(key);
    expect(stored?.bytes).toEqual(Buffer.from(bytes));
    expect(stored?.contentType).toBe('application/wasm');
    expect(stored?.checksumSha256).toBe(createHash('sha256').update(bytes).digest('base64'));
    // Path-style: the bucket is the first path segment, the host is the endpoint's.
    const [put] = requestsFor(key).filter((r) => r.method === 'PUT');
    expect(put?.bucket).toBe(BUCKET);
    expect(put?.headers.host).toBe(new URL(double.endpoint).host);
  });

  it('signs every request with AWS4-HMAC-SHA256, the configured access key id and region', async () => {
    const storage = s3Storage();
    const hash = await storage.put(moduleBytes('signed'));
    await storage.get(hash);
    const seen = requestsFor(`modules/${hash}.wasm`);
    expect(seen.map((r) => r.method)).toEqual(['HEAD', 'PUT', 'GET']);
    for (const request of seen) {
      expect(request.scheme).toBe('AWS4-HMAC-SHA256');
      expect(request.accessKeyId).toBe(ACCESS_KEY_ID);
      expect(request.region).toBe('eu-central-1');
      expect(JSON.stringify(request.headers)).not.toContain(SECRET);
    }
  });

  it('answers null for a module it does not hold, and for a malformed hash without asking the store', async () => {
    const storage = s3Storage();
    const missing = sha256(moduleBytes('never stored'));
    expect(await storage.get(missing)).toBeNull();
    expect(requestsFor(`modules/${missing}.wasm`).map((r) => r.status)).toEqual([404]);
    const before = double.requests.length;
    for (const malformed of ['', 'abc', `${missing.slice(0, 63)}G`, missing.toUpperCase(), '../x'])
      expect(await storage.get(malformed)).toBeNull();
    expect(double.requests.length).toBe(before);
  });

  it('puts idempotently: the same bytes twice store one object and upload once', async () => {
    const bytes = moduleBytes('twice');
    const storage = s3Storage();
    const first = await storage.put(bytes);
    const second = await storage.put(bytes);
    const third = await s3Storage().put(bytes);
    expect([second, third]).toEqual([first, first]);
    const key = `modules/${first}.wasm`;
    expect([...objects().keys()].filter((k) => k === key)).toHaveLength(1);
    expect(requestsFor(key).map((r) => r.method)).toEqual(['HEAD', 'PUT', 'HEAD', 'HEAD']);
    // Two puts at once both answer the hash and leave one object holding the bytes.
    const racing = moduleBytes('racing');
    const hashes = await Promise.all([storage.put(racing), s3Storage().put(racing)]);
    expect(hashes).toEqual([sha256(racing), sha256(racing)]);
    expect(objects().get(`modules/${sha256(racing)}.wasm`)?.bytes).toEqual(Buffer.from(racing));
  });

  it('uploads again when the object under the key has another size', async () => {
    const bytes = moduleBytes('truncated');
    const hash = sha256(bytes);
    const key = `modules/${hash}.wasm`;
    objects().set(key, { bytes: Buffer.from(bytes.subarray(0, 4)), contentType: null, checksumSha256: null });
    expect(await s3Storage().put(bytes)).toBe(hash);
    expect(objects().get(key)?.bytes).toEqual(Buffer.from(bytes));
  });

  it('refuses to serve an object whose bytes do not match its hash', async () => {
    const storage = s3Storage();
    const hash = await storage.put(moduleBytes('damaged'));
    const key = `modules/${hash}.wasm`;
    const stored = objects().get(key);
    if (!stored) throw new Error('not stored');
    objects().set(key, { ...stored, bytes: Buffer.from(moduleBytes('substituted')) });
    await expect(storage.get(hash)).rejects.toThrow(
      `object ${key} in bucket ${BUCKET} does not match its hash`,
    );
  });

  it('uses the configured prefix, normalising its slashes, and none for STORAGE_PREFIX=/', async () => {
    const nested = s3Storage({ STORAGE_PREFIX: '/tenant-a/wasm' });
    const hash = await nested.put(moduleBytes('prefixed'));
    expect(objects().has(`tenant-a/wasm/${hash}.wasm`)).toBe(true);
    expect(nested.key(hash)).toBe(`tenant-a/wasm/${hash}.wasm`);
    const bare = s3Storage({ STORAGE_PREFIX: '/' });
    const other = await bare.put(moduleBytes('no prefix'));
    expect(objects().has(`${other}.wasm`)).toBe(true);
    expect(await bare.get(hash)).toBeNull();
    expect(await bare.get(other)).not.toBeNull();
  });

  it('writes to the configured bucket only', async () => {
    const hash = await s3Storage({ STORAGE_BUCKET: 'other-bucket' }).put(moduleBytes('other bucket'));
    expect(double.buckets.get('other-bucket')?.has(`modules/${hash}.wasm`)).toBe(true);
    expect(objects().has(`modules/${hash}.wasm`)).toBe(false);
  });

  it('throws, never answers null, when the bucket does not exist, naming it but not the secret', async () => {
    const storage = s3Storage({ STORAGE_BUCKET: 'no-such-bucket' });
    const hash = sha256(moduleBytes('nowhere'));
    const read = storage.get(hash);
    await expect(read).rejects.toThrow(
      /GetObject modules\/[0-9a-f]{64}\.wasm in bucket no-such-bucket .*NoSuchBucket/,
    );
    const write = storage.put(moduleBytes('nowhere'));
    await expect(write).rejects.toThrow(/PutObject .* in bucket no-such-bucket .*NoSuchBucket/);
    for (const failed of [read, write]) {
      const error = await failed.catch((e: Error) => e);
      expect(String(error)).not.toContain(SECRET);
    }
  });

  it('throws when the store cannot be reached', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const storage = s3Storage({}, closed);
    await expect(storage.get(sha256(moduleBytes('unreachable')))).rejects.toThrow(
      /module storage: GetObject .* failed/,
    );
    await expect(storage.put(moduleBytes('unreachable'))).rejects.toThrow(
      /module storage: HeadObject .* failed/,
    );
  });
});

describe('createModuleStorage', () => {
  it('keeps modules under DATA_DIR/modules by default', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-storage-'));
    try {
      const storage = createModuleStorage(loadConfig({ DATA_DIR: dataDir }));
      expect(storage).toBeInstanceOf(FilesystemModuleStorage);
      const bytes = moduleBytes('filesystem');
      const hash = (await storage?.put(bytes)) ?? '';
      expect(await fs.readFile(path.join(dataDir, 'modules', `${hash}.wasm`))).toEqual(Buffer.from(bytes));
      expect(Buffer.from((await storage?.get(hash)) ?? [])).toEqual(Buffer.from(bytes));
      expect(await storage?.get(sha256(moduleBytes('absent')))).toBeNull();
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });

  it('answers an S3 store when STORAGE_ENDPOINT is set, and none when MODULE_STORAGE=off', () => {
    expect(s3Storage()).toBeInstanceOf(S3ModuleStorage);
    expect(createModuleStorage(loadConfig({ MODULE_STORAGE: 'off' }))).toBeNull();
  });
});
