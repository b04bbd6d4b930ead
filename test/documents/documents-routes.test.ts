// The documents routes through the real api (real HTTP, real PostgreSQL, documents under DATA_DIR): upload,
// the check's verdict, list, read, content, and every refusal. Every answer is checked against /openapi.json.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSchemaAjv } from '../../src/module/schemas.ts';
import { expectError } from '../http/expect.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import {
  bytesOf,
  checked,
  type DocumentAnswer,
  documentsPath,
  PDF,
  PNG,
  upload,
  uploaded,
} from './support.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => platform?.close());

const sha256 = async (bytes: Uint8Array) =>
  Buffer.from(await crypto.subtle.digest('SHA-256', bytes)).toString('hex');

describe('POST /subjects/:subjectId/documents', () => {
  it('stores the bytes, answers the document pending, and the check makes it clean', async () => {
    const document = await uploaded(platform, {
      subjectId: 'applicant-1',
      name: 'Relevé d’identité.pdf',
      contentType: 'Application/PDF; version=1.7',
      bytes: PDF,
    });
    expect(document).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      subjectId: 'applicant-1',
      name: 'Relevé d’identité.pdf',
      contentType: 'application/pdf',
      size: PDF.byteLength,
      sha256: await sha256(PDF),
      status: 'pending',
      reason: null,
      createdAt: expect.any(String),
      checkedAt: null,
      createdBy: 'user:ada',
    });
    const done = await checked(platform, document);
    expect(done).toMatchObject({ status: 'clean', reason: null });
    expect(Date.parse(done.checkedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(done.createdAt));
    // Kept under DATA_DIR/documents/<tenantId>/<id>, as uploaded.
    const file = path.join(platform.config.dataDir, 'documents', await platform.tenantId(), document.id);
    expect(new Uint8Array(await fs.readFile(file))).toEqual(PDF);
  });

  it('rejects what the check refuses, with its reason', async () => {
    const cases: [string, string, Uint8Array, string][] = [
      ['png-as-pdf.pdf', 'application/pdf', PNG, 'type_mismatch'],
      ['empty.pdf', 'application/pdf', new Uint8Array(), 'empty'],
      ['tool.pdf', 'application/pdf', bytesOf([0x7f], 'ELF', [2, 1, 1, 0]), 'executable'],
      ['bundle.png', 'image/png', bytesOf('PK', [3, 4, 20, 0]), 'archive'],
      ['latin1.txt', 'text/plain', bytesOf('caf', [0xe9]), 'invalid_text'],
    ];
    for (const [name, contentType, bytes, reason] of cases) {
      const document = await uploaded(platform, { subjectId: 'applicant-2', name, contentType, bytes });
      expect(await checked(platform, document), name).toMatchObject({
        status: 'rejected',
        reason,
        checkedAt: expect.any(String),
      });
    }
  });

  it('refuses a type it does not take, or none, with 415 naming the types it takes', async () => {
    for (const contentType of ['application/zip', 'application/x-msdownload', 'application/json-seq']) {
      const error = await expectError(
        await upload(platform, { subjectId: 'applicant-3', name: 'a.zip', contentType, bytes: PDF }),
        415,
        'unsupported_media_type',
      );
      expect(error.message).toContain('application/pdf, image/png');
    }
    await expectError(
      await upload(platform, { subjectId: 'applicant-3', name: 'a.pdf', bytes: PDF }),
      415,
      'unsupported_media_type',
    );
    // A JSON document is stored as it is, not parsed as a request.
    const json = await uploaded(platform, {
      subjectId: 'applicant-3',
      name: 'report.json',
      contentType: 'application/json',
      bytes: bytesOf('{"score": 12}'),
    });
    expect(await checked(platform, json)).toMatchObject({ status: 'clean', size: 13 });
  });

  it('describes the body it takes: any JSON value is a JSON document, as any bytes are a text one', async () => {
    // A fuzzer sent these as application/json: the route took them (they are documents, stored as sent)
    // while the description said the body must be a string. The description says what the route takes.
    const description = await (await platform.fetch('/openapi.json', { token: null })).json();
    const content = description.paths['/subjects/{subjectId}/documents'].post.requestBody.content;
    const ajv = createSchemaAjv();
    for (const type of ['application/json', 'text/plain', 'text/csv']) {
      const takes = ajv.compile(content[type].schema);
      for (const value of [false, 0, [null, null], null, { a: 1 }, 'text'])
        expect(takes(value), `${type} ${JSON.stringify(value)}`).toBe(true);
    }
    for (const type of ['application/pdf', 'image/png'])
      expect(content[type].schema).toMatchObject({ type: 'string', format: 'binary' });
    for (const [text, size] of [
      ['false', 5],
      ['0', 1],
      ['[null, null]', 12],
    ] as const) {
      const document = await uploaded(platform, {
        subjectId: 'applicant-json',
        name: 'value.json',
        contentType: 'application/json',
        bytes: bytesOf(text),
      });
      expect(await checked(platform, document)).toMatchObject({ status: 'clean', size });
    }
  });

  it('refuses a body over 8 MiB with 413, and takes one of exactly 8 MiB', async () => {
    const limit = 8 * 1024 * 1024;
    const big = new Uint8Array(limit + 1);
    big.set(PDF);
    await expectError(
      await upload(platform, {
        subjectId: 'applicant-4',
        name: 'big.pdf',
        contentType: 'application/pdf',
        bytes: big,
      }),
      413,
      'payload_too_large',
    );
    const document = await uploaded(platform, {
      subjectId: 'applicant-4',
      name: 'big.pdf',
      contentType: 'application/pdf',
      bytes: big.subarray(0, limit),
    });
    expect(document.size).toBe(limit);
  });

  it('refuses a bad name or subject with 400 validation_error at its parameter', async () => {
    const cases: [string, string, string][] = [
      [documentsPath('applicant-5'), 'query.name', 'no name'],
      [documentsPath('applicant-5', '?name='), 'query.name', 'an empty name'],
      [documentsPath('applicant-5', `?name=${encodeURIComponent('../etc/passwd')}`), 'query.name', 'a path'],
      [documentsPath('applicant-5', `?name=${encodeURIComponent('a\u0000b')}`), 'query.name', 'a NUL'],
      [documentsPath('applicant-5', `?name=${'n'.repeat(256)}`), 'query.name', 'a long name'],
      [documentsPath('applicant-5', '?name=a.pdf&folder=x'), 'query.folder', 'an unknown parameter'],
      [documentsPath('s'.repeat(201), '?name=a.pdf'), 'params.subjectId', 'a long subject'],
    ];
    for (const [pathname, at, what] of cases) {
      const response = await platform.fetch(pathname, {
        method: 'POST',
        headers: { 'content-type': 'application/pdf' },
        body: Buffer.from(PDF),
      });
      const error = await expectError(response, 400, 'validation_error');
      const issues = (error.details?.issues ?? []) as { path: string }[];
      expect(
        issues.map((issue) => issue.path),
        what,
      ).toContain(at);
    }
  });

  it('refuses a name that reorders what is shown (bidirectional controls) or holds a C1 control, writing nothing', async () => {
    const subjectId = 'applicant-bidi';
    // `invoice\u202Etxt.exe` shows as invoiceexe.txt and saves as .exe.
    const refused = [
      'invoice\u202Etxt.exe',
      ...['\u202A', '\u202B', '\u202C', '\u202D', '\u2066', '\u2067', '\u2068', '\u2069'],
      ...['\u200E', '\u200F', '\u061C', '\u0085', '\u009F'],
    ].map((c) => (c.length === 1 ? `scan${c}.pdf` : c));
    for (const name of refused) {
      const response = await upload(platform, {
        subjectId,
        name,
        contentType: 'application/pdf',
        bytes: PDF,
      });
      const error = await expectError(response, 400, 'validation_error');
      expect(error.details?.issues, JSON.stringify(name)).toEqual([
        { path: 'query.name', message: expect.stringMatching(/must match pattern/) },
      ]);
    }
    const listed = await platform.fetch(documentsPath(subjectId));
    expect(((await listed.json()) as { total: number }).total).toBe(0);
    // Joiners reorder nothing and Persian, Indic scripts and emoji need them: taken.
    const joined = 'نامه\u200Cها.pdf';
    const document = await uploaded(platform, {
      subjectId,
      name: joined,
      contentType: 'application/pdf',
      bytes: PDF,
    });
    expect(document.name).toBe(joined);
  });

  it('needs a token and documents:write', async () => {
    const request = { subjectId: 'applicant-6', name: 'a.pdf', contentType: 'application/pdf', bytes: PDF };
    await expectError(await upload(platform, { ...request, token: null }), 401, 'unauthorized');
    const reader = await platform.token({ roles: [], permissions: ['documents:read'] });
    const error = await expectError(await upload(platform, { ...request, token: reader }), 403, 'forbidden');
    expect(error.details).toEqual({ permission: 'documents:write' });
    const writer = await platform.token({ roles: [], permissions: ['documents:write'] });
    expect((await upload(platform, { ...request, token: writer })).status).toBe(201);
  });
});

describe('reading documents', () => {
  let clean: DocumentAnswer;
  let rejected: DocumentAnswer;
  let foreign: DocumentAnswer;
  let otherSubject: DocumentAnswer;
  beforeAll(async () => {
    const subjectId = 'applicant-read';
    clean = await checked(
      platform,
      await uploaded(platform, {
        subjectId,
        name: 'scan (1).pdf',
        contentType: 'application/pdf',
        bytes: PDF,
      }),
    );
    rejected = await checked(
      platform,
      await uploaded(platform, { subjectId, name: 'fake.jpg', contentType: 'image/jpeg', bytes: PDF }),
    );
    otherSubject = await uploaded(platform, {
      subjectId: 'applicant-other',
      name: 'b.pdf',
      contentType: 'application/pdf',
      bytes: PDF,
    });
    const globex = await platform.token({ tenant: 'globex' });
    foreign = await uploaded(platform, {
      subjectId,
      name: 'globex.pdf',
      contentType: 'application/pdf',
      bytes: PDF,
      token: globex,
    });
  });

  it('lists a subject’s documents newest first, by status, with paging', async () => {
    const list = async (query = '') => {
      const response = await platform.fetch(documentsPath('applicant-read', query));
      expect(response.status).toBe(200);
      return (await response.json()) as { items: DocumentAnswer[]; total: number; totalIsEstimate: boolean };
    };
    const all = await list();
    // Another subject's and another tenant's documents are not among them.
    expect(all.items.map((d) => d.id)).toEqual([rejected.id, clean.id]);
    expect(all).toMatchObject({ total: 2, totalIsEstimate: false });
    expect((await list('?status=clean')).items.map((d) => d.id)).toEqual([clean.id]);
    expect((await list('?status=rejected')).items).toEqual([rejected]);
    expect(await list('?status=pending')).toEqual({ items: [], total: 0, totalIsEstimate: false });
    expect(await list('?limit=1&offset=1')).toMatchObject({ items: [clean], total: 2 });
    await expectError(
      await platform.fetch(documentsPath('applicant-read', '?status=lost')),
      400,
      'validation_error',
    );
    // A subject without documents has an empty list, not a 404.
    const nobody = await platform.fetch(documentsPath('nobody'));
    expect(await nobody.json()).toEqual({ items: [], total: 0, totalIsEstimate: false });
  });

  it('answers one document, and 404 for another subject’s, another tenant’s or an unknown id', async () => {
    const one = await platform.fetch(documentsPath('applicant-read', `/${clean.id}`));
    expect(await one.json()).toEqual(clean);
    for (const id of [otherSubject.id, foreign.id, crypto.randomUUID()]) {
      await expectError(await platform.fetch(documentsPath('applicant-read', `/${id}`)), 404, 'not_found');
      await expectError(
        await platform.fetch(documentsPath('applicant-read', `/${id}/content`)),
        404,
        'not_found',
      );
    }
    await expectError(
      await platform.fetch(documentsPath('applicant-read', '/not-a-uuid')),
      400,
      'validation_error',
    );
  });

  it('serves a clean document’s bytes as an attachment, and refuses a rejected one with 409', async () => {
    const response = await platform.fetch(documentsPath('applicant-read', `/${clean.id}/content`));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toBe(
      "attachment; filename*=UTF-8''scan%20%281%29.pdf",
    );
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(PDF);
    const error = await expectError(
      await platform.fetch(documentsPath('applicant-read', `/${rejected.id}/content`)),
      409,
      'conflict',
    );
    expect(error.details).toEqual({ status: 'rejected' });
  });

  it('needs documents:read', async () => {
    const analyst = await platform.token({ roles: ['analyst'] });
    for (const pathname of [
      documentsPath('applicant-read'),
      documentsPath('applicant-read', `/${clean.id}`),
      documentsPath('applicant-read', `/${clean.id}/content`),
    ]) {
      const error = await expectError(await platform.fetch(pathname, { token: analyst }), 403, 'forbidden');
      expect(error.details).toEqual({ permission: 'documents:read' });
      await expectError(await platform.fetch(pathname, { token: null }), 401, 'unauthorized');
    }
  });
});

describe('a deployment without object storage', () => {
  it('answers 503 documents_unavailable on every documents route', async () => {
    const off = await startTestPlatform({ MODULE_STORAGE: 'off' });
    try {
      const id = crypto.randomUUID();
      await expectError(
        await upload(off, { subjectId: 's', name: 'a.pdf', contentType: 'application/pdf', bytes: PDF }),
        503,
        'documents_unavailable',
      );
      for (const pathname of [
        documentsPath('s'),
        documentsPath('s', `/${id}`),
        documentsPath('s', `/${id}/content`),
      ])
        await expectError(await off.fetch(pathname), 503, 'documents_unavailable');
    } finally {
      await off.close();
    }
  });
});
