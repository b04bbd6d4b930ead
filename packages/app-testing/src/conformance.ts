// The conformance check of an app (what `app test` runs; docs/writing-apps.md): the manifest parses
// strictly, its schemas compile, invoke refuses an unknown action, synchronous samples answer ok with
// output valid against the action's output schema, asynchronous samples answer pending and complete
// through handle_webhook with the same external id. Everything runs through the loader (the real host).
import fs from 'node:fs/promises';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import {
  ACTION_NAME,
  type ActionDeclaration,
  createSchemaAjv,
  type JsonSchema,
  type Manifest,
} from '../../../src/module/index.ts';
import { inspectUpload, RunnerFailure } from '../../../src/runner/index.ts';
import { type LoadedApp, type LoadOptions, openApp } from './loader.ts';
import { type Sample, sampleWebhookRequest, webhookExternalId } from './samples.ts';

export interface ConformanceOptions
  extends Pick<LoadOptions, 'config' | 'secrets' | 'hosts' | 'documents' | 'cache' | 'ai' | 'tenantId'> {
  samples?: Sample[];
}

export interface ConformanceCheck {
  name: string;
  passed: boolean;
  message?: string;
}

export interface ConformanceReport {
  passed: boolean;
  checks: ConformanceCheck[];
}

type Validators = Map<string, { input: ValidateFunction; output: ValidateFunction }>;

/** Why the value breaks the schema, or null. */
function problem(validate: ValidateFunction, value: unknown, what: string): string | null {
  if (validate(value)) return null;
  return createSchemaAjv().errorsText(validate.errors, { dataVar: what });
}

function compileAll(manifest: Manifest): { config: ValidateFunction; actions: Validators } | string {
  // A fresh Ajv per schema, as the platform compiles them: one schema's $id never meets another's.
  const compile = (schema: JsonSchema, path: string) => {
    try {
      return createSchemaAjv().compile(schema);
    } catch (error) {
      throw new Error(`${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  try {
    const actions: Validators = new Map();
    for (const action of manifest.actions) {
      actions.set(action.name, {
        input: compile(action.input, `actions.${action.name}.input`),
        output: compile(action.output, `actions.${action.name}.output`),
      });
    }
    return { config: compile(manifest.configSchema, 'configSchema'), actions };
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function unknownActionName(manifest: Manifest): string {
  let name = 'conformance_unknown_action';
  while (manifest.actions.some((a) => a.name === name)) name += '_x';
  return ACTION_NAME.test(name) ? name : 'zz_unknown';
}

const failureText = (error: unknown) =>
  error instanceof RunnerFailure
    ? `the call failed in the runner (${error.code}): ${error.message}`
    : error instanceof Error
      ? error.message
      : String(error);

/** Runs one check; a throw fails it with the error's text. */
async function check(
  checks: ConformanceCheck[],
  name: string,
  body: () => Promise<string | { message?: string; failed?: string } | undefined>,
): Promise<boolean> {
  try {
    const result = await body();
    if (result && typeof result === 'object' && result.failed !== undefined) {
      checks.push({ name, passed: false, message: result.failed });
      return false;
    }
    const message = typeof result === 'string' ? result : result?.message;
    checks.push({ name, passed: true, ...(message ? { message } : {}) });
    return true;
  } catch (error) {
    checks.push({ name, passed: false, message: failureText(error) });
    return false;
  }
}

const fail = (failed: string) => ({ failed });

async function checkSample(
  app: LoadedApp,
  sample: Sample,
  label: string,
  validators: Validators,
  options: ConformanceOptions,
  checks: ConformanceCheck[],
): Promise<void> {
  const declared: ActionDeclaration | undefined = app.manifest.actions.find((a) => a.name === sample.action);
  const schemas = validators.get(sample.action);
  if (!declared || !schemas) {
    checks.push({ name: label, passed: false, message: `the manifest declares no action ${sample.action}` });
    return;
  }
  const inputProblem = problem(schemas.input, sample.input, 'input');
  if (inputProblem) {
    checks.push({
      name: label,
      passed: false,
      message: `the sample's input breaks the input schema: ${inputProblem}`,
    });
    return;
  }
  if (!declared.async) {
    await check(checks, `${label}: answers ok with output valid against the output schema`, async () => {
      const { answer } = await app.invoke(sample.action, sample.input, {
        idempotencyKey: `conformance-${label}`,
      });
      if (answer.status !== 'ok') return fail(`answered ${answer.status}: ${JSON.stringify(answer)}`);
      const outputProblem = problem(schemas.output, answer.output, 'output');
      return outputProblem ? fail(`the output breaks the output schema: ${outputProblem}`) : undefined;
    });
    return;
  }
  let externalId = '';
  const pending = await check(checks, `${label}: answers pending with an external id`, async () => {
    const { answer } = await app.invoke(sample.action, sample.input, {
      idempotencyKey: `conformance-${label}`,
    });
    if (answer.status !== 'pending') {
      return fail(`an asynchronous action answers pending; it answered ${JSON.stringify(answer)}`);
    }
    externalId = answer.externalId;
    return `external id ${externalId}`;
  });
  if (!pending) return;
  if (app.manifest.handles.handoff) {
    await check(checks, `${label}: handoff answers for the pending external id`, async () => {
      const { answer } = await app.handoff(externalId);
      if (answer.status !== 'ok') return fail(`answered error: ${answer.message}`);
      return answer.handoff ? `hands off to ${answer.handoff.url}` : 'no hand-off page';
    });
  }
  await check(checks, `${label}: completes through handle_webhook with the same external id`, async () => {
    if (!app.manifest.handles.webhook) return fail('the manifest does not handle webhooks (handles.webhook)');
    if (!sample.webhook) {
      return fail(
        'the sample gives no webhook to complete the session; add one (see the app-testing README)',
      );
    }
    const request = await sampleWebhookRequest(sample.webhook, externalId, options.secrets ?? {});
    const found = webhookExternalId(app.manifest, options.config ?? {}, request);
    if (found === null) {
      return fail(
        'the api would answer 400 missing_external_id: the webhook has no ?externalId= and the ' +
          'manifest or config names no webhookExternalId source the webhook holds',
      );
    }
    if (found !== externalId) return fail(`the api would look up session ${found}, not ${externalId}`);
    const { answer } = await app.handleWebhook(request);
    if (answer.status !== 'event') return fail(`handle_webhook answered ${JSON.stringify(answer)}`);
    const event = answer.event;
    if (event.externalId !== externalId) {
      return fail(`the event names external id ${event.externalId}, not ${externalId}: the api rejects it`);
    }
    if (event.status === 'pending') return fail('the event leaves the session pending');
    if (event.status === 'completed' && event.output !== undefined) {
      const outputProblem = problem(schemas.output, event.output, 'output');
      if (outputProblem) return fail(`the completed output breaks the output schema: ${outputProblem}`);
    }
    return `event ${event.eventId} ${event.status}`;
  });
}

/** Checks a built module (bytes or a .wasm path); the report passes only when every check passes. */
export async function checkConformance(
  moduleBytesOrPath: Uint8Array | string,
  options: ConformanceOptions = {},
): Promise<ConformanceReport> {
  const bytes =
    typeof moduleBytesOrPath === 'string'
      ? new Uint8Array(await fs.readFile(moduleBytesOrPath))
      : moduleBytesOrPath;
  const checks: ConformanceCheck[] = [];
  const report = () => ({ passed: checks.every((c) => c.passed), checks });

  const verdict = await inspectUpload(bytes);
  if (!verdict.accepted) {
    const where = verdict.path ? `${verdict.path}: ` : '';
    checks.push({ name: 'manifest parses strictly', passed: false, message: `${where}${verdict.message}` });
    return report();
  }
  const { manifest } = verdict;
  checks.push({
    name: 'manifest parses strictly',
    passed: true,
    message: `${manifest.name} ${manifest.version}, ${manifest.actions.length} action(s)`,
  });
  const compiled = compileAll(manifest);
  checks.push(
    typeof compiled === 'string'
      ? { name: 'schemas compile', passed: false, message: compiled }
      : { name: 'schemas compile', passed: true },
  );
  if (typeof compiled === 'string') return report();
  if (options.config !== undefined) {
    const configProblem = problem(compiled.config, options.config, 'config');
    checks.push({
      name: 'config matches configSchema',
      passed: configProblem === null,
      ...(configProblem ? { message: configProblem } : {}),
    });
  }

  const app = await openApp(bytes, verdict, options);
  try {
    const unknown = unknownActionName(manifest);
    await check(checks, 'invoke refuses an unknown action', async () => {
      const { answer } = await app.invoke(unknown, {});
      if (answer.status === 'error') return `answered error: ${answer.message}`;
      return fail(
        `invoke answered ${answer.status} for an action the manifest does not declare (${unknown}); answer { status: "error" } instead`,
      );
    });
    for (const [i, sample] of (options.samples ?? []).entries()) {
      const label = sample.name ?? `${sample.action} sample ${i + 1}`;
      await checkSample(app, sample, label, compiled.actions, options, checks);
    }
  } finally {
    await app.close();
  }
  return report();
}
