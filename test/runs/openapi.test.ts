// The definition routes and the install usage route as /openapi.json describes them: operation names,
// successes with their schemas, each route's own errors, examples, and steps and rules told apart by type.
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

const expected: Record<string, [string, string[], string[]]> = {
  'get /workflow-definitions': ['listWorkflowDefinitions', ['200'], ['400', '403']],
  'post /workflow-definitions': ['createWorkflowDefinition', ['201'], ['400', '403', '409']],
  'get /workflow-definitions/{key}': ['getWorkflowDefinition', ['200'], ['403', '404']],
  'put /workflow-definitions/{key}/draft': ['saveWorkflowDefinitionDraft', ['200'], ['400', '403', '404']],
  'post /workflow-definitions/{key}/publish': [
    'publishWorkflowDefinition',
    ['200'],
    ['400', '403', '404', '409'],
  ],
  'get /rule-sets': ['listRuleSets', ['200'], ['400', '403']],
  'post /rule-sets': ['createRuleSet', ['201'], ['400', '403', '409']],
  'get /rule-sets/{key}': ['getRuleSet', ['200'], ['403', '404']],
  'put /rule-sets/{key}/draft': ['saveRuleSetDraft', ['200'], ['400', '403', '404']],
  'post /rule-sets/{key}/publish': ['publishRuleSet', ['200'], ['400', '403', '404', '409']],
  'get /app-installs/{install}/usage': ['getInstallUsage', ['200'], ['403', '404']],
};

const operation = (key: string) => {
  const [method, path] = key.split(' ') as [string, string];
  return doc.paths[path]?.[method];
};
const json = (key: string, status: string) => operation(key).responses[status]?.content?.['application/json'];

describe('the definition operations in /openapi.json', () => {
  it('names and summarises each, with its successes and its own errors on the error body', () => {
    for (const [key, [operationId, successes, failures]] of Object.entries(expected)) {
      expect(operation(key)?.operationId, key).toBe(operationId);
      expect(operation(key).summary, key).toEqual(expect.any(String));
      for (const status of successes) expect(json(key, status)?.schema, `${key} ${status}`).toBeDefined();
      for (const status of failures) {
        expect(JSON.stringify(json(key, status)?.schema), `${key} ${status}`).toContain('ErrorBody');
      }
    }
    expect(operation('post /workflow-definitions').responses['200']).toBeUndefined();
  });

  it('describes the bodies exactly: strict, steps and rules told apart by type, with examples', () => {
    const create = operation('post /workflow-definitions').requestBody.content['application/json'];
    expect(create.schema.required.sort()).toEqual(['body', 'key']);
    expect(create.schema.additionalProperties).toBe(false);
    expect(create.example).toMatchObject({ key: expect.any(String), body: { steps: expect.any(Array) } });
    // The bodies, their versions and validation are components, named once.
    expect(create.schema.properties.body).toEqual({ $ref: '#/components/schemas/WorkflowBody' });
    const schemas = doc.components.schemas;
    for (const name of [
      'WorkflowBody',
      'RuleSetBody',
      'DefinitionValidation',
      'WorkflowDefinitionVersion',
      'RuleSetVersion',
    ]) {
      expect(schemas[name], name).toBeDefined();
    }
    const steps = schemas.WorkflowBody.properties.steps;
    expect(steps).toMatchObject({
      minItems: 1,
      maxItems: 50,
      items: { discriminator: { propertyName: 'type' } },
    });
    expect(steps.items.oneOf.map((s: { properties: { type: unknown } }) => s.properties.type)).toEqual([
      expect.objectContaining({ enum: ['call_app'] }),
      expect.objectContaining({ enum: ['rule_set'] }),
      expect.objectContaining({ enum: ['decide'] }),
    ]);
    for (const branch of steps.items.oneOf) expect(branch.additionalProperties).toBe(false);
    const draft = operation('put /rule-sets/{key}/draft').requestBody.content['application/json'];
    expect(draft.schema.allOf).toEqual([{ $ref: '#/components/schemas/RuleSetBody' }]);
    expect(schemas.RuleSetBody.properties.rules).toMatchObject({ minItems: 1, maxItems: 100 });
    expect(draft.example).toMatchObject({ rules: expect.any(Array) });
    expect(json('post /rule-sets', '201').schema.$ref).toBe('#/components/schemas/RuleSetVersion');
    expect(schemas.RuleSetVersion.properties.validation.$ref).toBe(
      '#/components/schemas/DefinitionValidation',
    );
    const validation = schemas.DefinitionValidation;
    expect(validation.properties.errors.items.properties.code.enum).toEqual([
      'unknown_install',
      'unknown_action',
      'unmappable_input',
      'async_rule',
      'unknown_rule_set',
      'duplicate_output_key',
    ]);
    // A publish answers the body only to a caller who may read definitions.
    const published = json('post /workflow-definitions/{key}/publish', '200').schema;
    expect(published.required.sort()).toEqual(
      ['createdAt', 'createdBy', 'key', 'kind', 'publishedAt', 'publishedBy', 'status', 'version'].sort(),
    );
    expect(published.properties.body).toEqual({ $ref: '#/components/schemas/WorkflowBody' });
  });
});
