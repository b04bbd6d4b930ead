// `app new` and `app build` as authors run them (the package bin, the real compiler, the real sandbox):
// a scaffold builds into a module whose manifest is the one it declares; a manifest the platform would
// refuse fails the build with one line naming the path at fault, and no module is written.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppBuildError, buildApp } from '../../src/app-cli/compile.ts';
import { newApp } from '../../src/app-cli/new.ts';
import { sha256Hex } from '../../src/module/wasm.ts';
import { inspectUpload } from '../../src/runner/inspect.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/app.js');
let work: string;

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'app-cli-'));
});
afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

function app(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: work, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** A scaffolded app whose manifest text has one edit. */
async function variant(dir: string, edit: (source: string) => string): Promise<string> {
  await newApp(path.join(work, dir), 'variant');
  const file = path.join(work, dir, 'assembly/index.ts');
  const source = await fs.readFile(file, 'utf8');
  const edited = edit(source);
  expect(edited).not.toBe(source);
  await fs.writeFile(file, edited);
  return dir;
}

describe('app new and app build', () => {
  it('scaffolds an app that builds into the module its manifest declares', async () => {
    const created = await app('new', 'demo');
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).toContain('created app demo in demo');
    for (const file of ['assembly/index.ts', 'conformance.json', 'test/app.test.ts', 'README.md']) {
      expect(existsSync(path.join(work, 'demo', file)), file).toBe(true);
    }

    const built = await app('build', 'demo');
    // What it is doing, as it starts each step (compiling is otherwise silent for 15 to 25 s).
    expect(built.stderr).toBe(
      [
        'loading the AssemblyScript compiler',
        `compiling ${path.join('demo', 'assembly', 'index.ts')} (AssemblyScript, optimize level 3: about 20 s, longer on a busy machine)`,
        'checking the module as an upload is checked (imports, manifest, exports, memory)',
        '',
      ].join('\n'),
    );
    expect(built.code).toBe(0);
    const [modulePath, shaLine] = built.stdout.trim().split('\n');
    expect(modulePath).toBe(path.join('demo', 'build', 'demo-0.1.0.wasm'));
    const bytes = new Uint8Array(await fs.readFile(path.join(work, modulePath as string)));
    expect(shaLine).toBe(`sha256 ${sha256Hex(bytes)}`);

    // The written module is the capped one: inspecting it again names the same hash and manifest.
    const verdict = await inspectUpload(bytes);
    if (!verdict.accepted) throw new Error(verdict.message);
    expect(verdict.sha256).toBe(sha256Hex(bytes));
    expect(verdict.manifest).toEqual({
      interface: 2,
      name: 'demo',
      version: '0.1.0',
      title: 'Demo',
      description: 'Greets someone by name: the smallest app that builds and passes its conformance check.',
      capabilities: [],
      configSchema: {
        type: 'object',
        properties: { greeting: { type: 'string', minLength: 1, maxLength: 40 } },
        additionalProperties: false,
      },
      secrets: [],
      actions: [
        {
          name: 'greet',
          description: 'Answers a greeting for the name given.',
          input: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string', minLength: 1, maxLength: 100 } },
            additionalProperties: false,
          },
          output: {
            type: 'object',
            required: ['message'],
            properties: { message: { type: 'string' } },
            additionalProperties: false,
          },
          timeoutMs: 5000,
          idempotent: true,
        },
      ],
      hosts: [],
      hostsFromConfig: [],
      needs: [],
      memoryMiB: 64,
      handles: { webhook: false, handoff: false },
    });
  }, 180_000);

  const refusals: [string, (source: string) => string, string][] = [
    [
      'an unknown manifest field',
      (s) =>
        s.replace(
          '"idempotent": true',
          '"idempotent": true,\n      "retry": { "maxAttempts": 2, "backoffMs": 100, "jitter": true }',
        ),
      'app build: manifest: actions.greet.retry.jitter: unknown field (the app may be built with a newer toolkit than this platform supports; rebuild it with a toolkit for this platform)',
    ],
    [
      'a bad version',
      (s) => s.replace('"version": "0.1.0"', '"version": "0.1"'),
      'app build: manifest: version: expected a semantic version: three integers and an optional -prerelease suffix',
    ],
    [
      'a schema default on a hostsFromConfig field',
      (s) =>
        s
          .replace(
            '"properties": { "greeting"',
            '"properties": { "baseUrl": { "type": "string", "default": "https://api.vendor.test" }, "greeting"',
          )
          .replace('"actions": [', '"hostsFromConfig": ["/baseUrl"],\n  "actions": ['),
      'app build: manifest: hostsFromConfig.0: configSchema gives /baseUrl a default; it may have none',
    ],
    [
      'a missing export',
      (s) => s.replace('"actions": [', '"handles": { "webhook": true },\n  "actions": ['),
      'app build: manifest: handles.webhook: is true, but module does not export the function handle_webhook',
    ],
    [
      'a manifest export that traps',
      (s) => s.replace('return sendManifest(MANIFEST);', 'unreachable();\n  return sendManifest(MANIFEST);'),
      'app build: the manifest export trapped: unreachable',
    ],
  ];

  it('prints its steps, then one line for a refusal, exits 1 and writes no module, not even at --out', async () => {
    const [what, edit, line] = refusals[0] as (typeof refusals)[number];
    const dir = await variant(what.replaceAll(' ', '-'), edit);
    const result = await app('build', dir, '--out', 'refused/module.wasm', '--optimize', '0');
    const steps = [
      'loading the AssemblyScript compiler',
      `compiling ${path.join(dir, 'assembly', 'index.ts')} (AssemblyScript, optimize level 0)`,
      'checking the module as an upload is checked (imports, manifest, exports, memory)',
    ];
    expect(result).toEqual({ code: 1, stdout: '', stderr: [...steps, line, ''].join('\n') });
    expect(existsSync(path.join(work, 'refused'))).toBe(false);
    expect(existsSync(path.join(work, dir, 'build'))).toBe(false);
  }, 120_000);

  // The same check and message as the command (which prints `app build: ` and the message), built
  // without optimization to keep the test quick.
  it.each(refusals)(
    'refuses %s naming the path, writing no module',
    async (what, edit, line) => {
      const dir = await variant(`api-${what.replaceAll(' ', '-')}`, edit);
      const refused = await buildApp(path.join(work, dir), undefined, { optimizeLevel: 0 }).catch((e) => e);
      expect(refused).toBeInstanceOf(AppBuildError);
      expect(`app build: ${refused.message}`).toBe(line);
      expect(existsSync(path.join(work, dir, 'build'))).toBe(false);
    },
    60_000,
  );

  it('writes the module where --out says', async () => {
    const built = await buildApp(path.join(work, 'demo'), path.join(work, 'elsewhere/demo.wasm'), {
      optimizeLevel: 0,
    });
    expect(built.path).toBe(path.join(work, 'elsewhere/demo.wasm'));
    expect(sha256Hex(new Uint8Array(await fs.readFile(built.path)))).toBe(built.sha256);
    expect(built.manifest.name).toBe('demo');
  }, 60_000);

  it('throws AppBuildError from buildApp, naming the code and path; a manifest literal that is not JSON', async () => {
    const unknown = await variant('api-unknown', (s) =>
      s.replace('"idempotent": true', '"idempotent": true, "x": 1'),
    );
    const refused = await buildApp(path.join(work, unknown), undefined, { optimizeLevel: 0 }).catch((e) => e);
    expect(refused).toBeInstanceOf(AppBuildError);
    expect(refused).toMatchObject({ code: 'invalid_module', manifestPath: 'actions.greet.x' });
    const missing = await variant('api-missing', (s) =>
      s.replace('"actions": [', '"handles": { "handoff": true },\n  "actions": ['),
    );
    const noExport = await buildApp(path.join(work, missing), undefined, { optimizeLevel: 0 }).catch(
      (e) => e,
    );
    expect(noExport).toMatchObject({ code: 'missing_export', manifestPath: 'handles.handoff' });
    const broken = await variant('api-not-json', (s) =>
      s.replace('"version": "0.1.0",', '"version": "0.1.0",,'),
    );
    const notJson = await buildApp(path.join(work, broken), undefined, { optimizeLevel: 0 }).catch((e) => e);
    expect(notJson).toMatchObject({ code: 'invalid_module' });
    expect(notJson.message).toBe(
      'the manifest export trapped: Plugin-originated error: the manifest text is not JSON: expected a member name at position 62 (line 4, column 22)',
    );
    for (const dir of [unknown, missing, broken])
      expect(existsSync(path.join(work, dir, 'build'))).toBe(false);
  }, 120_000);

  it('reports compile errors with the compiler diagnostics, writing no module', async () => {
    const dir = await variant('broken', (s) =>
      s.replace('return runInvoke(ACTIONS);', 'return runInvoke(ACTIONS) +;'),
    );
    const result = await app('build', dir, '--optimize', '0');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('ERROR');
    expect(result.stderr.trim().split('\n').at(-1)).toMatch(
      /^app build: broken\/assembly\/index\.ts does not compile: /,
    );
    expect(existsSync(path.join(work, dir, 'build'))).toBe(false);
  }, 120_000);

  it('answers usage errors with exit code 2', async () => {
    expect(await app('build', 'absent')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'app: absent does not exist\n',
    });
    await fs.mkdir(path.join(work, 'used'));
    await fs.writeFile(path.join(work, 'used/file.txt'), 'x');
    expect(await app('new', 'used')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'app: used exists and is not empty\n',
    });
    expect(await app('new', 'Bad_Name!', '--name', 'approvals')).toMatchObject({
      code: 2,
      stderr: 'app: app name "approvals": approvals is a reserved name; give one with --name\n',
    });
    expect(await app('build', 'used')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('no assembly/index.ts'),
    });
    expect(await app('build', 'demo', '--optimize', '4')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'app: --optimize: expected 0, 1, 2 or 3, got "4"\n',
    });
  }, 60_000);
});
