// Property: whatever a secret holds (spaces, quotes, backslashes, slashes, %, non-ASCII, upper case) and
// wherever the host fills it (path, query, header, body), a vendor that echoes the request back in its
// headers, a text body, a JSON body or a 404 page never gets it into the test call's answer, error or
// logs in any spelling: raw, lower-cased, percent-encoded (component and URI), JSON-escaped once and
// twice, base64, hex and fully percent-encoded (every byte %XX) in lower and upper case. The real api and
// runner, the release http-connector, a vendor double on 127.0.0.1.
import fs from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  startVendorDouble,
  type VendorDouble,
  type VendorRequest,
} from '../../packages/app-testing/src/index.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { ok, published, SECRET_KEY_HEX } from '../installs/support.ts';

const CONNECTOR = path.resolve(import.meta.dirname, '../../apps/build/http-connector-1.0.0.wasm');

let platform: CataloguePlatform;
let vendor: VendorDouble;
let admin: string;
/** The 404 page's padding: moves the echo across the module's 300-character snippet of it. */
let padding = 0;

const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');
/** Every byte as %XX: what a strict or careless encoder writes, unreserved characters included. */
const everyBytePercent = (text: string) => hex(text).replace(/../g, '%$&');

/** Everything the vendor received, as it received it, decoded, and re-encoded as hex and %XX. */
function echoOf(request: VendorRequest) {
  const query = new URLSearchParams(request.query).toString();
  const decodedPath = decodeURIComponent(request.path);
  const header = request.headers['x-acct'] ?? '';
  const received = `${decodedPath} ${request.query.q ?? ''} ${header}`;
  return {
    path: request.path,
    decodedPath,
    rawQuery: query,
    query: request.query,
    header,
    body: request.body,
    hex: `${hex(received)} ${hex(received).toUpperCase()}`,
    percent: `${everyBytePercent(received)} ${everyBytePercent(received).toLowerCase()}`,
  };
}

beforeAll(async () => {
  platform = await startCataloguePlatform({
    SECRET_STORE_KEY: SECRET_KEY_HEX,
    APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true',
  });
  vendor = await startVendorDouble([
    {
      path: /^\/json(\/.*)?$/,
      respond: (request) => {
        const echo = echoOf(request);
        return { json: echo, headers: { 'x-echo-path': echo.path, 'x-echo-header': echo.header } };
      },
    },
    {
      path: /^\/text(\/.*)?$/,
      respond: (request) => ({
        headers: { 'content-type': 'text/plain; charset=utf-8' },
        body: Object.values(echoOf(request))
          .map((v) => JSON.stringify(v))
          .join('\n'),
      }),
    },
    {
      path: /^\/missing(\/.*)?$/,
      respond: (request) => {
        const e = echoOf(request);
        const page = `${'.'.repeat(padding)}<h1>No page at ${e.path}?${e.rawQuery}</h1><p>${e.decodedPath} ${e.header} ${e.body} ${e.hex} ${e.percent}</p>`;
        return { status: 404, headers: { 'content-type': 'text/html; charset=utf-8' }, body: page };
      },
    },
  ]);
  admin = await platform.token({ tenant: 'redaction' });
  const version = await published(platform, admin, fs.readFile(CONNECTOR));
  await ok(
    await platform.fetch('/app-installs', {
      method: 'POST',
      token: admin,
      json: {
        name: 'echo',
        versionId: version.id,
        // A test call runs a disabled install too; its secret is stored by each run.
        enabled: false,
        config: {
          baseUrl: vendor.url,
          variables: [{ key: 'ACCT', secret: true, stepPlaces: ['path', 'query', 'headers', 'body'] }],
        },
        approveHosts: [vendor.host],
      },
    }),
    201,
  );
}, 120_000);

afterAll(async () => {
  await vendor?.close();
  await platform?.close();
});

const ALPHABET = [
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  ...' "\'\\/%&?#+=<>:;,',
  ...'üÜéÉßΩ€‹›中',
];
const secretArbitrary = fc
  .array(fc.constantFrom(...ALPHABET), { minLength: 8, maxLength: 24 })
  .map((chars) => chars.join(''))
  .filter((s) => (s.match(/[A-Za-z]/g) ?? []).length >= 3 && !s.includes('<<') && !s.includes('>>'));

const json = (text: string) => JSON.stringify(text).slice(1, -1);

function spellings(secret: string): Record<string, string> {
  return {
    raw: secret,
    lower: secret.toLowerCase(),
    component: encodeURIComponent(secret),
    uri: encodeURI(secret),
    jsonOnce: json(secret),
    jsonTwice: json(json(secret)),
    base64: Buffer.from(secret, 'utf8').toString('base64'),
    hexLower: hex(secret),
    hexUpper: hex(secret).toUpperCase(),
    everyBytePercentUpper: everyBytePercent(secret).toUpperCase(),
    everyBytePercentLower: everyBytePercent(secret).toLowerCase(),
  };
}

/** Every string of a parsed answer, member names included. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => [key, ...stringsOf(item)]);
  }
  return [];
}

function expectNoSpelling(secret: string, texts: string[], where: string) {
  for (const [name, spelling] of Object.entries(spellings(secret))) {
    for (const text of texts) {
      const found =
        name === 'raw' || name === 'lower'
          ? text.toLowerCase().includes(spelling.toLowerCase())
          : text.includes(spelling);
      expect(found, `${where}: ${name} spelling of ${JSON.stringify(secret)} in ${text}`).toBe(false);
    }
  }
}

/** Path, query and body in one request; a header alone, since a header refuses what it cannot carry. */
const PLACES: Record<string, (route: string) => Record<string, unknown>> = {
  'path, query and body': (route) => ({
    method: 'POST',
    path: `/${route}/a/<<ACCT>>/b`,
    query: { q: '<<ACCT>>' },
    body: { acct: '<<ACCT>>', text: 'k=<<ACCT>>' },
  }),
  header: (route) => ({ method: 'GET', path: `/${route}`, headers: { 'X-Acct': '<<ACCT>>' } }),
};

it('keeps a secret out of answers, errors and logs in every spelling, wherever it was sent', async () => {
  await fc.assert(
    fc.asyncProperty(secretArbitrary, fc.nat(320), async (secret, pad) => {
      padding = pad;
      await ok(
        await platform.fetch('/app-installs/echo/secrets/ACCT', {
          method: 'POST',
          token: admin,
          json: { value: secret },
        }),
      );
      for (const [place, input] of Object.entries(PLACES)) {
        for (const route of ['json', 'text', 'missing']) {
          const response = await platform.fetch('/app-installs/echo/test', {
            method: 'POST',
            token: admin,
            json: { action: 'request', input: input(route) },
          });
          const text = await response.text();
          expect(response.status, text).toBe(200);
          const answer = JSON.parse(text) as {
            status: string;
            error?: { message?: string };
            logs: unknown[];
          };
          const where = `${place} → ${route}`;
          expectNoSpelling(secret, [text, ...stringsOf(answer)], where);
          expectNoSpelling(secret, [answer.error?.message ?? ''], `${where} error`);
          expectNoSpelling(secret, stringsOf(answer.logs), `${where} logs`);
        }
      }
    }),
    { numRuns: 15 },
  );
  // The vendor did receive the secrets (in the body, as sent): the property is about what comes back.
  expect(vendor.requests.some((r) => r.body.includes('"acct":'))).toBe(true);
}, 120_000);
