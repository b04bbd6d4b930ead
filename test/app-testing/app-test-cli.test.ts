// `app test` through the real command (node bin/app.js test ...): a built module, samples from a JSON
// file, and an app directory built first with its test/conformance.ts setup.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorDouble, type VendorDouble } from '../../packages/app-testing/src/index.ts';
import { buildFixture } from '../support/assemblyscript.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'app.js');
const SLOW = 180_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const app = (...args: string[]) =>
  new Promise<Run>((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, timeout: SLOW }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });

let dir: string;
let vendor: VendorDouble;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'app-test-cli-'));
  await fs.writeFile(path.join(dir, 'vendor-app.wasm'), await buildFixture('vendor-app'));
  await fs.writeFile(path.join(dir, 'sloppy.wasm'), await buildFixture('sloppy'));
  vendor = await startVendorDouble([
    { method: 'GET', path: '/things/:id', json: { found: true } },
    { method: 'POST', path: '/sessions', status: 201, json: { sessionId: 'sess_7' } },
  ]);
}, 120_000);
afterAll(async () => {
  await vendor?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe('app test <module.wasm>', () => {
  it(
    'prints one line per check and exits 0 when every check passes',
    async () => {
      const run = await app('test', path.join(dir, 'vendor-app.wasm'));
      expect(run.code).toBe(0);
      expect(run.stdout.trim().split('\n')).toEqual([
        'no samples given: running the checks that need none',
        '✓ manifest parses strictly (vendor-app 1.0.0, 7 action(s))',
        '✓ schemas compile',
        '✓ invoke refuses an unknown action (answered error: unknown action conformance_unknown_action)',
        '3 passed, 0 failed',
      ]);
    },
    SLOW,
  );

  it(
    'exits 1 naming the failed check and what to fix',
    async () => {
      const run = await app('test', path.join(dir, 'sloppy.wasm'));
      expect(run.code).toBe(1);
      const lines = run.stdout.trim().split('\n');
      expect(lines).toContain(
        '✗ invoke refuses an unknown action: invoke answered ok for an action the manifest does not declare ' +
          '(conformance_unknown_action); answer { status: "error" } instead',
      );
      expect(lines.at(-1)).toBe('2 passed, 1 failed');
    },
    SLOW,
  );

  it(
    'runs the samples of a JSON setup, and prints the report as JSON on request',
    async () => {
      const setup = path.join(dir, 'conformance.json');
      await fs.writeFile(
        setup,
        JSON.stringify({
          config: { baseUrl: vendor.url },
          secrets: { API_KEY: 'sk-test-abcdef123456', WEBHOOK_SECRET: 'whsec-test-0123456789' },
          samples: [
            { action: 'lookup', input: { thingId: 't-1' } },
            {
              action: 'start',
              input: { applicant: 'Ada' },
              webhook: {
                body: { session: '{{externalId}}', decision: 'approved' },
                sign: { secretName: 'WEBHOOK_SECRET' },
              },
            },
          ],
        }),
      );
      const run = await app('test', path.join(dir, 'vendor-app.wasm'), '--samples', setup);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`samples from ${setup}`);
      expect(run.stdout).toContain(
        '✓ start sample 2: completes through handle_webhook with the same external id',
      );
      expect(run.stdout.trim().split('\n').at(-1)).toBe('8 passed, 0 failed');

      const json = await app('test', path.join(dir, 'vendor-app.wasm'), '--samples', setup, '--json');
      expect(json.code).toBe(0);
      const report = JSON.parse(json.stdout);
      expect(report.passed).toBe(true);
      expect(report.checks).toHaveLength(8);
    },
    SLOW,
  );

  it(
    'is a usage error (exit 2) for a path that does not exist',
    async () => {
      const run = await app('test', path.join(dir, 'missing.wasm'));
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('missing.wasm does not exist');
    },
    SLOW,
  );
});

// A bare app on the plugin kit; the SDK import brings the abort handler app build compiles with.
const APP_SOURCE = `import { Host } from '@extism/as-pdk';
import { abortToTrap } from '@apps-platform/app-sdk';

export function manifest(): i32 {
  Host.outputString('{"interface":2,"name":"greeter","version":"0.1.0","configSchema":{"type":"object"},' +
    '"actions":[{"name":"greet","input":{"type":"object"},' +
    '"output":{"type":"object","required":["greeting"],"properties":{"greeting":{"type":"string"}}}}]}');
  return 0;
}

export function invoke(): i32 {
  const envelope = Host.inputString();
  if (envelope.includes('"action":"greet"')) Host.outputString('{"status":"ok","output":{"greeting":"hello"}}');
  else Host.outputString('{"status":"error","message":"unknown action"}');
  return 0;
}
`;

const SETUP_SOURCE = `import fs from 'node:fs';
import path from 'node:path';

export default async function setup() {
  return {
    samples: [{ name: 'greets', action: 'greet', input: {} }],
    close: () => fs.writeFileSync(path.join(import.meta.dirname, 'closed'), 'yes'),
  };
}
`;

describe('app test <dir>', () => {
  it(
    'builds the app first and runs the samples of its test/conformance.ts, then closes the setup',
    async () => {
      const appDir = path.join(dir, 'greeter');
      await fs.mkdir(path.join(appDir, 'assembly'), { recursive: true });
      await fs.mkdir(path.join(appDir, 'test'), { recursive: true });
      await fs.writeFile(path.join(appDir, 'assembly', 'index.ts'), APP_SOURCE);
      await fs.writeFile(path.join(appDir, 'test', 'conformance.ts'), SETUP_SOURCE);
      const run = await app('test', appDir, '--optimize', '0');
      expect(run.stderr).not.toContain('app:');
      expect(run.code).toBe(0);
      const lines = run.stdout.trim().split('\n');
      // What it is doing while it compiles, then what it built.
      expect(lines.slice(0, 3)).toEqual([
        'loading the AssemblyScript compiler',
        `compiling ${path.join(appDir, 'assembly', 'index.ts')} (AssemblyScript, optimize level 0)`,
        'checking the module as an upload is checked (imports, manifest, exports, memory)',
      ]);
      const built = /^built (.*greeter-0\.1\.0\.wasm) \(sha256 ([0-9a-f]{64})\)$/.exec(lines[3] ?? '');
      expect(built, lines[3]).not.toBeNull();
      expect(lines).toContain(`samples from ${path.join(appDir, 'test', 'conformance.ts')}`);
      expect(lines).toContain('✓ greets: answers ok with output valid against the output schema');
      expect(lines.at(-1)).toBe('4 passed, 0 failed');
      expect(await fs.readFile(path.join(appDir, 'test', 'closed'), 'utf8')).toBe('yes');

      // Again, nothing changed: the build is reused, and says so; the checks are the same.
      const again = await app('test', appDir, '--optimize', '0');
      expect(again.code).toBe(0);
      const againLines = again.stdout.trim().split('\n');
      expect(againLines[0]).toBe(
        `reusing ${built?.[1]} (sha256 ${built?.[2]}): built from these sources; app build rebuilds it`,
      );
      expect(againLines.slice(1)).toEqual(lines.slice(4));

      // A source edited: built again.
      await fs.appendFile(path.join(appDir, 'assembly', 'index.ts'), '// edited\n');
      const edited = await app('test', appDir, '--optimize', '0');
      expect(edited.code).toBe(0);
      const editedLines = edited.stdout.trim().split('\n');
      expect(editedLines.slice(0, 3)).toEqual(lines.slice(0, 3));
      expect(editedLines[3]).toMatch(/^built .*greeter-0\.1\.0\.wasm \(sha256 [0-9a-f]{64}\)$/);
    },
    // Two builds and a reuse.
    2 * SLOW,
  );
});
