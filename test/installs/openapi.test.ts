// The install routes as /openapi.json describes them: each operation named, its successes with their
// statuses and schemas, the errors it answers beyond the generic ones, bodies requiring only what has no
// default, and examples for the main bodies. The answers themselves are checked by the route tests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;
// biome-ignore lint/suspicious/noExplicitAny: the document is checked by assertions
let doc: any;
beforeAll(async () => {
  platform = await startTestPlatform();
  doc = await (await platform.fetch('/openapi.json', { token: null })).json();
});
afterAll(async () => platform?.close());

/** operationId, then success and route-specific error statuses, of every install operation. */
const expected: Record<string, [string, string[], string[]]> = {
  'get /app-installs': ['listInstalls', ['200'], []],
  'post /app-installs': ['createInstall', ['201', '202'], ['409']],
  'get /app-installs/{install}': ['getInstall', ['200'], ['404']],
  'put /app-installs/{install}': ['saveInstall', ['200', '202'], ['404', '409']],
  'delete /app-installs/{install}': ['deleteInstall', ['204'], ['404', '409']],
  'post /app-installs/{install}/secrets/{secret}': ['storeInstallSecret', ['200'], ['404']],
  'delete /app-installs/{install}/secrets/{secret}': ['removeInstallSecret', ['200'], ['404']],
  'post /app-installs/{install}/rename': ['renameInstall', ['200'], ['404', '409']],
  'delete /app-installs/{install}/aliases/{alias}': ['removeInstallAlias', ['200'], ['404', '409']],
  'put /app-installs/{install}/circuit': ['configureInstallCircuit', ['200'], ['404']],
  'post /app-installs/{install}/circuit/reset': ['resetInstallCircuit', ['200'], ['404']],
  'get /app-installs/{install}/cache': ['listInstallCache', ['200'], ['404']],
  'delete /app-installs/{install}/cache': ['clearInstallCache', ['200'], ['404']],
  'get /app-installs/{install}/limits': ['getInstallLimits', ['200'], ['404']],
  'put /app-installs/{install}/limits': ['saveInstallLimits', ['200'], ['404', '409']],
  'get /app-install-changes': ['listInstallChanges', ['200'], []],
  'post /app-installs/{install}/changes/{id}/approve': ['approveInstallChange', ['200'], ['404', '409']],
  'post /app-installs/{install}/changes/{id}/reject': ['rejectInstallChange', ['200'], ['404', '409']],
  'post /app-installs/{install}/changes/{id}/withdraw': ['withdrawInstallChange', ['200'], ['404', '409']],
};

const operation = (key: string) => {
  const [method, path] = key.split(' ') as [string, string];
  return doc.paths[path]?.[method];
};
const bodySchema = (key: string) => operation(key).requestBody.content['application/json'].schema;
const answer = (key: string, status: string) => operation(key).responses[status];
/** A schema, its $ref (if any) followed into the document's components. */
const resolved = (schema: { $ref?: string }) =>
  schema.$ref ? doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;

describe('the install operations in /openapi.json', () => {
  it('each has its operationId and a summary', () => {
    for (const [key, [operationId]] of Object.entries(expected)) {
      expect(operation(key), key).toBeDefined();
      expect(operation(key).operationId, key).toBe(operationId);
      expect(operation(key).summary, key).toEqual(expect.any(String));
    }
  });

  it('documents every success with its schema, and the errors each answers with the error body', () => {
    for (const [key, [, successes, failures]] of Object.entries(expected)) {
      for (const status of successes) {
        expect(answer(key, status), `${key} ${status}`).toBeDefined();
        if (status !== '204') {
          expect(answer(key, status).content['application/json'].schema, `${key} ${status}`).toBeDefined();
        }
      }
      for (const status of failures) {
        const schema = resolved(answer(key, status)?.content['application/json'].schema ?? {});
        expect(schema?.properties?.error?.required, `${key} ${status}`).toEqual(
          expect.arrayContaining(['code', 'message', 'requestId']),
        );
      }
    }
    expect(answer('post /app-installs', '200')).toBeUndefined();
    expect(answer('delete /app-installs/{install}', '200')).toBeUndefined();
  });

  it('answers the install view, exact, and { install, change } when a save waits', () => {
    const view = answer('get /app-installs/{install}', '200').content['application/json'].schema;
    expect(view.additionalProperties).toBe(false);
    expect(Object.keys(view.properties)).toEqual(
      expect.arrayContaining(['version', 'pendingChange', 'missingSecrets', 'webhookUrl', 'circuit']),
    );
    const held = answer('post /app-installs', '202').content['application/json'].schema;
    expect(Object.keys(held.properties).sort()).toEqual(['change', 'install']);
  });

  it('requires only the fields without a default, and shows examples of the main bodies', () => {
    expect(bodySchema('post /app-installs').required.sort()).toEqual(['name', 'versionId']);
    expect(bodySchema('put /app-installs/{install}').required).toEqual(['versionId']);
    expect(bodySchema('post /app-installs/{install}/rename').required).toEqual(['name']);
    for (const key of [
      'post /app-installs',
      'put /app-installs/{install}',
      'post /app-installs/{install}/changes/{id}/approve',
      'put /app-installs/{install}/limits',
    ]) {
      // The generator moves a body schema's first example to the media type's example.
      const media = operation(key).requestBody.content['application/json'];
      expect(media.example ?? media.examples ?? media.schema.examples, key).toBeTruthy();
    }
    const force = operation('delete /app-installs/{install}').parameters.find(
      (p: { name: string }) => p.name === 'force',
    );
    expect(force.required ?? false).toBe(false);
  });
});
