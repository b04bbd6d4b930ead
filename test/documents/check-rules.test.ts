// The document check's rule (src/documents/check-rules.ts): one row per sentence of it.
import { describe, expect, it } from 'vitest';
import {
  ACCEPTED_CONTENT_TYPES,
  acceptedType,
  DOCUMENT_STATUSES,
  essenceOf,
  REJECTION_REASONS,
  verdictOf,
} from '../../src/documents/check-rules.ts';
import { Document } from '../../src/documents/schemas.ts';

const bytes = (...parts: (string | number[])[]) =>
  new Uint8Array(parts.flatMap((part) => (typeof part === 'string' ? [...Buffer.from(part)] : part)));

// The comment line of binary bytes, as PDF writers put it, so the file is no UTF-8 text.
const PDF = bytes('%PDF-1.7\n%', [0xe2, 0xe3, 0xcf, 0xd3], '\n1 0 obj\n');
const PNG = bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13], 'IHDR');
const JPEG = bytes([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10], 'JFIF');
const GIF = bytes('GIF89a', [1, 0, 1, 0]);
const WEBP = bytes('RIFF', [0x24, 0, 0, 0], 'WEBPVP8 ');
const TIFF_LE = bytes([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0]);
const TIFF_BE = bytes([0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8]);

/** A Windows PE: `MZ`, its header's offset at 0x3c, `PE\0\0` there. */
function portableExecutable(): Uint8Array {
  const b = new Uint8Array(0x90);
  b.set([0x4d, 0x5a]);
  b[0x3c] = 0x80;
  b.set([0x50, 0x45, 0, 0], 0x80);
  return b;
}

/** A tar archive: `ustar` at offset 257 behind a file name. */
function tarball(): Uint8Array {
  const b = new Uint8Array(512);
  b.set(Buffer.from('passport.pdf'));
  b.set(Buffer.from('ustar\x0000'), 257);
  return b;
}

describe('verdictOf', () => {
  it.each<[string, string, Uint8Array, ReturnType<typeof verdictOf>]>([
    // An empty document is rejected, whatever its type.
    ['empty', 'application/pdf', new Uint8Array(), { status: 'rejected', reason: 'empty' }],
    ['empty text', 'text/plain', new Uint8Array(), { status: 'rejected', reason: 'empty' }],
    // Programs are rejected whatever the type declared, before the type is looked at.
    ['ELF', 'application/pdf', bytes([0x7f], 'ELF', [2, 1, 1]), { status: 'rejected', reason: 'executable' }],
    [
      'Mach-O',
      'image/png',
      bytes([0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1]),
      { status: 'rejected', reason: 'executable' },
    ],
    [
      'fat binary or class file',
      'image/png',
      bytes([0xca, 0xfe, 0xba, 0xbe]),
      { status: 'rejected', reason: 'executable' },
    ],
    [
      'WebAssembly',
      'application/pdf',
      bytes([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]),
      { status: 'rejected', reason: 'executable' },
    ],
    ['Windows PE', 'application/pdf', portableExecutable(), { status: 'rejected', reason: 'executable' }],
    ['a script', 'text/plain', bytes('#!/bin/sh\nrm -rf /\n'), { status: 'rejected', reason: 'executable' }],
    // Archives and compressed streams too: they could carry anything past the check.
    ['zip', 'application/pdf', bytes('PK', [3, 4, 20, 0]), { status: 'rejected', reason: 'archive' }],
    ['gzip', 'image/jpeg', bytes([0x1f, 0x8b, 8, 0]), { status: 'rejected', reason: 'archive' }],
    [
      'bzip2',
      'text/plain',
      bytes('BZh9', [0x31, 0x41, 0x59, 0x26, 0x53, 0x59]),
      { status: 'rejected', reason: 'archive' },
    ],
    ['xz', 'image/gif', bytes([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0]), { status: 'rejected', reason: 'archive' }],
    [
      '7-Zip',
      'image/gif',
      bytes([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]),
      { status: 'rejected', reason: 'archive' },
    ],
    ['RAR', 'image/gif', bytes('Rar!', [0x1a, 0x07, 0]), { status: 'rejected', reason: 'archive' }],
    ['zstd', 'image/gif', bytes([0x28, 0xb5, 0x2f, 0xfd]), { status: 'rejected', reason: 'archive' }],
    ['cabinet', 'image/gif', bytes('MSCF', [0, 0, 0, 0]), { status: 'rejected', reason: 'archive' }],
    ['tar', 'text/plain', tarball(), { status: 'rejected', reason: 'archive' }],
    // A binary type's bytes must start with its signature.
    ['PDF', 'application/pdf', PDF, { status: 'clean' }],
    ['PNG', 'image/png', PNG, { status: 'clean' }],
    ['JPEG', 'image/jpeg', JPEG, { status: 'clean' }],
    ['GIF', 'image/gif', GIF, { status: 'clean' }],
    ['WebP', 'image/webp', WEBP, { status: 'clean' }],
    ['TIFF, little-endian', 'image/tiff', TIFF_LE, { status: 'clean' }],
    ['TIFF, big-endian', 'image/tiff', TIFF_BE, { status: 'clean' }],
    ['a PNG said to be a PDF', 'application/pdf', PNG, { status: 'rejected', reason: 'type_mismatch' }],
    ['a PDF said to be a JPEG', 'image/jpeg', PDF, { status: 'rejected', reason: 'type_mismatch' }],
    ['text said to be a PNG', 'image/png', bytes('hello'), { status: 'rejected', reason: 'type_mismatch' }],
    [
      'a RIFF that is not WebP',
      'image/webp',
      bytes('RIFF', [4, 0, 0, 0], 'WAVE'),
      { status: 'rejected', reason: 'type_mismatch' },
    ],
    [
      'a type the check does not know',
      'application/zip',
      PDF,
      { status: 'rejected', reason: 'type_mismatch' },
    ],
    // A text type's bytes must be UTF-8 without control characters (tab, line feed, form feed, carriage return pass).
    ['text', 'text/plain', bytes('Relevé d’identité\r\n\tligne 2\f'), { status: 'clean' }],
    ['CSV', 'text/csv', bytes('name,country\nAda,GB\n'), { status: 'clean' }],
    ['text with a NUL', 'text/plain', bytes('a', [0], 'b'), { status: 'rejected', reason: 'invalid_text' }],
    [
      'text with an escape',
      'text/plain',
      bytes('a', [0x1b], '[31m'),
      { status: 'rejected', reason: 'invalid_text' },
    ],
    ['Latin-1 text', 'text/plain', bytes('caf', [0xe9]), { status: 'rejected', reason: 'invalid_text' }],
    ['a PDF said to be text', 'text/plain', PDF, { status: 'rejected', reason: 'invalid_text' }],
    // Text that only looks like a signature's first letters is text.
    ['text beginning "MZ"', 'text/plain', bytes('MZ Holdings annual report'), { status: 'clean' }],
    ['text beginning "BZh"', 'text/plain', bytes('BZh9 is not a stream'), { status: 'clean' }],
    // JSON must also parse.
    ['JSON', 'application/json', bytes('{"name":"Ada","scores":[1,2]}'), { status: 'clean' }],
    ['broken JSON', 'application/json', bytes('{"name":'), { status: 'rejected', reason: 'invalid_text' }],
  ])('%s declared %s', (_name, contentType, content, verdict) => {
    expect(verdictOf(contentType, content)).toEqual(verdict);
  });
});

describe('acceptedType', () => {
  it.each([
    ['application/pdf', 'application/pdf'],
    ['Application/PDF', 'application/pdf'],
    ['text/plain; charset=utf-8', 'text/plain'],
    [' image/png ', 'image/png'],
    ['application/zip', null],
    ['application/x-msdownload', null],
    ['application/octet-stream', null],
    ['text/html', null],
    ['not a type', null],
    ['', null],
    ['constructor/prototype', null],
  ])('%s → %s', (contentType, accepted) => {
    expect(acceptedType(contentType)).toBe(accepted);
  });

  it('accepts exactly the types the check has a sample of, each clean', () => {
    const samples: Record<string, Uint8Array> = {
      'application/pdf': PDF,
      'image/png': PNG,
      'image/jpeg': JPEG,
      'image/gif': GIF,
      'image/webp': WEBP,
      'image/tiff': TIFF_LE,
      'text/plain': bytes('text'),
      'text/csv': bytes('a,b'),
      'application/json': bytes('{}'),
    };
    expect([...ACCEPTED_CONTENT_TYPES].sort()).toEqual(Object.keys(samples).sort());
    for (const type of ACCEPTED_CONTENT_TYPES) {
      expect(essenceOf(type)).toBe(type);
      expect(verdictOf(type, samples[type] ?? new Uint8Array()), type).toEqual({ status: 'clean' });
    }
  });
});

describe('the answers’ schema', () => {
  it('lists the rule’s statuses and reasons', () => {
    const properties = Document.properties as unknown as Record<
      string,
      { anyOf: { const?: string; anyOf?: { const: string }[] }[] }
    >;
    expect(properties.status?.anyOf.map((s) => s.const)).toEqual([...DOCUMENT_STATUSES]);
    const reasons = properties.reason?.anyOf.flatMap((s) => s.anyOf?.map((r) => r.const) ?? []);
    expect(reasons).toEqual([...REJECTION_REASONS]);
  });
});
