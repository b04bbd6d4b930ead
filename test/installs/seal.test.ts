import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  cacheBinding,
  MIN_SEALED_BYTES,
  open,
  SEAL_VERSION,
  type SealBinding,
  seal,
} from '../../src/installs/secrets/seal.ts';

const KEY = Buffer.alloc(32, 1);
const OTHER_KEY = Buffer.alloc(32, 2);
const AAD: SealBinding = {
  tenantId: '0b6e4f8e-1111-4c7e-9d51-3f8a5e2c9a01',
  installId: '5d1c2b3a-2222-4a7e-8d51-3f8a5e2c9a02',
  name: 'API_KEY',
};
const SECRET = 'sk_live_0123456789abcdef';

describe('seal', () => {
  it('writes version, 12-byte IV, ciphertext and 16-byte tag', () => {
    const sealed = seal(KEY, AAD, SECRET);
    expect(sealed[0]).toBe(SEAL_VERSION);
    expect(sealed.length).toBe(1 + 12 + Buffer.byteLength(SECRET) + 16);
    expect(sealed.includes(Buffer.from(SECRET))).toBe(false);
  });

  it('draws a new IV each time, so one value never seals the same twice', () => {
    const a = seal(KEY, AAD, SECRET);
    const b = seal(KEY, AAD, SECRET);
    expect(a.equals(b)).toBe(false);
    expect(a.subarray(1, 13).equals(b.subarray(1, 13))).toBe(false);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => seal(Buffer.alloc(16), AAD, SECRET)).toThrow(RangeError);
    expect(() => seal(Buffer.alloc(33), AAD, SECRET)).toThrow(RangeError);
  });
});

describe('open', () => {
  it('opens what seal wrote: text of every kind, empty text included', () => {
    for (const text of [SECRET, '', 'ünïcødé ✓ 🔐', 'x'.repeat(100_000), '{"json":true}']) {
      expect(open(KEY, AAD, seal(KEY, AAD, text))).toBe(text);
    }
    expect(seal(KEY, AAD, '').length).toBe(MIN_SEALED_BYTES);
  });

  it('opens a copy held in a Uint8Array or a slice of a larger buffer', () => {
    const sealed = seal(KEY, AAD, SECRET);
    expect(open(KEY, AAD, new Uint8Array(sealed))).toBe(SECRET);
    const larger = Buffer.concat([Buffer.from('prefix'), sealed, Buffer.from('suffix')]);
    expect(open(KEY, AAD, larger.subarray(6, 6 + sealed.length))).toBe(SECRET);
  });

  it('answers null under another key', () => {
    expect(open(OTHER_KEY, AAD, seal(KEY, AAD, SECRET))).toBeNull();
    expect(open(randomBytes(32), AAD, seal(KEY, AAD, SECRET))).toBeNull();
  });

  it('answers null for another tenant, install or name', () => {
    const sealed = seal(KEY, AAD, SECRET);
    expect(open(KEY, { ...AAD, tenantId: 'another-tenant' }, sealed)).toBeNull();
    expect(open(KEY, { ...AAD, installId: 'another-install' }, sealed)).toBeNull();
    expect(open(KEY, { ...AAD, name: 'TOKEN' }, sealed)).toBeNull();
    expect(open(KEY, { ...AAD, name: 'api_key' }, sealed)).toBeNull();
  });

  it('keeps the binding unambiguous: fields cannot trade characters', () => {
    const a = seal(KEY, { tenantId: 'ab', installId: 'c', name: 'N' }, SECRET);
    expect(open(KEY, { tenantId: 'a', installId: 'bc', name: 'N' }, a)).toBeNull();
    const b = seal(KEY, { tenantId: 't', installId: 'i', name: 'A_B' }, SECRET);
    expect(open(KEY, { tenantId: 't', installId: 'i_A', name: 'B' }, b)).toBeNull();
  });

  it('keeps a sealed secret from opening as a cached value of the same name, and back', () => {
    const secret = seal(KEY, AAD, SECRET);
    const cached = cacheBinding(AAD.tenantId, AAD.installId, AAD.name);
    expect(cached.name).toBe('cache:API_KEY');
    expect(open(KEY, cached, secret)).toBeNull();
    expect(open(KEY, AAD, seal(KEY, cached, 'value'))).toBeNull();
    expect(open(KEY, cached, seal(KEY, cached, 'value'))).toBe('value');
  });

  it('answers null for tampered bytes anywhere: version, IV, ciphertext or tag', () => {
    const sealed = seal(KEY, AAD, SECRET);
    for (let index = 0; index < sealed.length; index++) {
      const tampered = Buffer.from(sealed);
      tampered[index] = (tampered[index] ?? 0) ^ 0x01;
      expect(open(KEY, AAD, tampered), `byte ${index}`).toBeNull();
    }
  });

  it('answers null for truncated or extended input', () => {
    const sealed = seal(KEY, AAD, SECRET);
    for (const length of [0, 1, 12, 13, MIN_SEALED_BYTES - 1, MIN_SEALED_BYTES, sealed.length - 1]) {
      expect(open(KEY, AAD, sealed.subarray(0, length)), `length ${length}`).toBeNull();
    }
    expect(open(KEY, AAD, sealed.subarray(1))).toBeNull();
    expect(open(KEY, AAD, Buffer.concat([sealed, Buffer.from([0])]))).toBeNull();
  });

  it('answers null for another format version', () => {
    const sealed = Buffer.from(seal(KEY, AAD, SECRET));
    sealed[0] = 2;
    expect(open(KEY, AAD, sealed)).toBeNull();
  });

  it('never throws on a bad value, key or binding', () => {
    const sealed = seal(KEY, AAD, SECRET);
    const bad: unknown[] = [null, undefined, 'text', 42, {}, [1, 2, 3], randomBytes(64)];
    for (const value of bad) expect(open(KEY, AAD, value as Uint8Array)).toBeNull();
    expect(open(Buffer.alloc(16), AAD, sealed)).toBeNull();
    expect(open('key' as unknown as Buffer, AAD, sealed)).toBeNull();
    expect(open(KEY, undefined as unknown as SealBinding, sealed)).toBeNull();
  });
});
