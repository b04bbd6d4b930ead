// Redocly's linter (recommended rules, redocly.yaml) over the description the api builds: zero errors,
// and no operation without a documented 4xx answer (operation-4xx-response is an error there).
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { openApiDocument } from '../../scripts/openapi-document.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const REDOCLY = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}

let dir: string | undefined;
afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

/** Redocly's CLI from node_modules, its JSON report read; it exits 1 when it found errors. */
async function lint(file: string): Promise<Problem[]> {
  const args = [REDOCLY, 'lint', file, '--format=json', '--config', path.join(ROOT, 'redocly.yaml')];
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  const stdout = await promisify(execFile)(process.execPath, args, {
    cwd: ROOT,
    env,
    maxBuffer: 1 << 26,
  }).then(
    (done) => done.stdout,
    (failed: { stdout?: string; stderr?: string }) => {
      if (!failed.stdout) throw new Error(`redocly lint failed: ${failed.stderr}`);
      return failed.stdout;
    },
  );
  return (JSON.parse(stdout) as { problems: Problem[] }).problems;
}

it('Redocly lint (recommended rules) finds no error in /openapi.json', async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-openapi-'));
  const file = path.join(dir, 'openapi.json');
  await fs.writeFile(file, JSON.stringify(await openApiDocument(), null, 2));
  const problems = await lint(file);
  const errors = problems
    .filter((problem) => problem.severity === 'error')
    .map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`);
  expect(errors).toEqual([]);
}, 60_000);
