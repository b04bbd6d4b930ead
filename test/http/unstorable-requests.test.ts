// Text PostgreSQL cannot store (U+0000, a lone surrogate) in a request: 400 validation_error naming where,
// never 500 (docs/api-conventions.md "Text a request may hold"). The table is made from /openapi.json:
// every string path and query parameter of every operation, and every string and member name of every
// JSON body's example (a hand-written body where the description gives none), against a tenant whose
// install, definitions and runs exist, so each request would reach its handler.
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { ok, published, SECRET_KEY_HEX } from '../installs/support.ts';
import { publishDefinitionRows } from '../runs/definitions.ts';
import { CONNECTOR } from '../runs/stack.ts';

interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  schema?: { type?: string; format?: string };
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { example?: unknown }> };
}

interface Case {
  name: string;
  operationId: string;
  method: string;
  url: string;
  body?: unknown;
  /** Where the refusal must point: a body's JSON Pointer, `query.x` or `params.x`. */
  at: string;
}

const R = '\ufffd';
const BAD = { 'U+0000': '\u0000', 'a lone surrogate': '\ud800' } as const;

/** Bodies of operations whose description gives no example, or one naming what this tenant lacks. */
const BODIES: Record<string, unknown> = {
  storeInstallSecret: { value: 'sk-test-1234567890' },
  renameInstall: { name: 'screening-next' },
  configureInstallCircuit: { failureThreshold: 5, openSeconds: 60 },
  testInstall: { action: 'request', input: { method: 'GET', path: '/screen', query: { name: 'Ada' } } },
};

type Body = Record<string, unknown>;
/**
 * What makes an example body one the handler would take (this tenant's version, a name not yet taken),
 * applied where the field still holds the example's value, so a refusal cannot come from anything else.
 */
const FRESH: Record<string, (body: Body, n: number) => Body> = {
  createInstall: (body, n) => ({
    ...body,
    ...(body.name === 'screening' ? { name: `install-${n}` } : {}),
    ...(body.versionId === EXAMPLE_VERSION ? { versionId: versionId } : {}),
  }),
  saveInstall: (body) => ({ ...body, ...(body.versionId === EXAMPLE_VERSION ? { versionId } : {}) }),
  createWorkflowDefinition: (body, n) => ({
    ...body,
    ...(body.key === 'onboarding' ? { key: `flow-${n}` } : {}),
  }),
  createRuleSet: (body, n) => ({ ...body, ...(body.key === 'onboarding' ? { key: `rules-${n}` } : {}) }),
};
const EXAMPLE_VERSION = '0f8e7a52-3c1d-4b7a-9e2f-5a6b7c8d9e0f';
let versionId: string;

let platform: CataloguePlatform;
let paths: Record<string, Record<string, Operation>>;
let pathValues: Record<string, string>;

beforeAll(async () => {
  platform = await startCataloguePlatform({
    SECRET_STORE_KEY: SECRET_KEY_HEX,
    // Hundreds of requests from one caller: the limiter is not what is tested.
    API_RATE_LIMIT_PER_MINUTE: '0',
  });
  const admin = await platform.token();
  const version = await published(platform, admin, fs.readFile(CONNECTOR));
  await ok(
    await platform.fetch('/app-installs', {
      method: 'POST',
      json: {
        name: 'screening',
        versionId: version.id,
        enabled: true,
        config: { baseUrl: 'https://api.vendor.example' },
        approveHosts: ['api.vendor.example'],
      },
    }),
    201,
  );
  const tenantId = await platform.tenantId();
  const step = {
    id: 's',
    type: 'call_app',
    install: 'screening',
    action: 'request',
    input: { method: 'GET' },
  };
  await publishDefinitionRows(platform.database, tenantId, 'workflow', 'onboarding', {
    steps: [{ ...step, outputKey: 'screening' }],
  } as never);
  await publishDefinitionRows(platform.database, tenantId, 'rule_set', 'onboarding', {
    rules: [{ key: 'adult', type: 'condition', when: { path: 'subject.age', gte: 18 } }],
  } as never);
  versionId = version.id;
  pathValues = {
    name: 'http-connector',
    id: version.id,
    install: 'screening',
    secret: 'API_KEY',
    alias: 'screening-old',
    key: 'onboarding',
  };
  const description = await platform.fetch('/openapi.json', { token: null });
  paths = ((await description.json()) as { paths: typeof paths }).paths;
}, 120_000);
afterAll(async () => platform?.close());

const isText = (parameter: Parameter) =>
  parameter.schema?.type !== 'integer' && parameter.schema?.type !== 'boolean';

function bodyOf(operation: Operation): unknown {
  const content = operation.requestBody?.content ?? {};
  const json = content['application/json'];
  // A raw upload taking JSON among other types (a document) keeps the bytes as sent: no JSON request to refuse.
  if (!json || Object.keys(content).length > 1) return undefined;
  const body = BODIES[operation.operationId] ?? json.example;
  if (body === undefined) throw new Error(`${operation.operationId}: give a body in BODIES`);
  return body;
}

/** Every place of a JSON value a bad character can go: each string, each member name. */
function* places(
  value: unknown,
  pointer = '',
): Generator<{ pointer: string; put: (bad: string) => unknown; at: string }> {
  if (typeof value === 'string') {
    yield { pointer, put: (bad) => `${value}${bad}`, at: pointer };
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [key, item] of Object.entries(value)) {
    const at = `${pointer}/${key}`;
    for (const inner of places(item, at)) {
      yield { ...inner, put: (bad) => replaced(value, key, inner.put(bad)) };
    }
    if (!Array.isArray(value)) {
      yield {
        pointer: at,
        put: (bad) =>
          Object.fromEntries(Object.entries(value).map(([k, v]) => [k === key ? `${k}${bad}` : k, v])),
        at: `${pointer}/${key}${R}`,
      };
    }
  }
}

function replaced(container: object, key: string, item: unknown): unknown {
  if (Array.isArray(container)) return container.map((old, index) => (String(index) === key ? item : old));
  return { ...container, [key]: item };
}

/** Puts a bad value at one place of the whole body, answering the new body. */
const bodyWith = (body: unknown, put: (bad: string) => unknown, bad: string) => put(bad) ?? body;

function cases(): Case[] {
  const all: Case[] = [];
  for (const [template, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const parameters = operation.parameters ?? [];
      const pathParams = parameters.filter((p) => p.in === 'path');
      const url = (bad?: { name: string }) =>
        template.replace(/\{(\w+)\}/g, (_m, name: string) =>
          encodeURIComponent(name === bad?.name ? `${pathValues[name]}\u0000` : (pathValues[name] as string)),
        );
      const body = bodyOf(operation);
      const id = `${method.toUpperCase()} ${template}`;
      for (const parameter of pathParams) {
        all.push({
          name: `${id} params.${parameter.name}`,
          operationId: operation.operationId,
          method,
          url: url(parameter),
          body,
          at: `params.${parameter.name}`,
        });
      }
      for (const parameter of parameters.filter((p) => p.in === 'query' && isText(p))) {
        all.push({
          name: `${id} query.${parameter.name}`,
          operationId: operation.operationId,
          method,
          url: `${url()}?${parameter.name}=x%00`,
          body,
          at: `query.${parameter.name}`,
        });
      }
      if (body === undefined) continue;
      for (const place of places(body)) {
        for (const [label, bad] of Object.entries(BAD)) {
          all.push({
            name: `${id} ${label} at ${place.at}`,
            operationId: operation.operationId,
            method,
            url: url(),
            body: bodyWith(body, place.put, bad),
            at: place.at,
          });
        }
      }
    }
  }
  return all;
}

describe('a request holding U+0000 or a lone surrogate', () => {
  it('is refused 400 validation_error at its path on every route, never 500', async () => {
    const table = cases();
    expect(table.length).toBeGreaterThan(200);
    const counts = async () =>
      (
        await platform.database.pool.query<{ audit: number; runs: number; drafts: number }>(
          `SELECT (SELECT count(*)::int FROM audit_events) AS audit, (SELECT count(*)::int FROM workflow_runs) AS runs,
                  (SELECT count(*)::int FROM definition_versions) AS drafts`,
        )
      ).rows[0];
    const before = await counts();
    const wrong: string[] = [];
    for (const [n, request] of table.entries()) {
      const fresh = FRESH[request.operationId];
      const body = fresh && request.body !== undefined ? fresh(request.body as Body, n) : request.body;
      const response = await platform.fetch(request.url, {
        method: request.method.toUpperCase(),
        ...(body !== undefined ? { json: body } : {}),
      });
      const answer = (await response.json()) as {
        error?: { code: string; details?: { issues?: { path: string }[] } };
      };
      const paths = answer.error?.details?.issues?.map((issue) => issue.path) ?? [];
      if (
        response.status !== 400 ||
        answer.error?.code !== 'validation_error' ||
        !paths.includes(request.at)
      ) {
        wrong.push(
          `${request.name}: ${response.status} ${answer.error?.code ?? ''} ${JSON.stringify(paths)}`,
        );
      }
    }
    expect(wrong).toEqual([]);
    // Refused before any handler: nothing written.
    expect(await counts()).toEqual(before);
  }, 300_000);
});
