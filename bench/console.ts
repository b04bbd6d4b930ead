// The console's first page (issue 46's budget): `platform start` as a person runs it, Debian's Chromium,
// and the sign-in link `platform console` prints, opened BENCH_TIMES times in a fresh browser context
// each (nothing cached): the time from the link's `goto` until Home shows its data (an activity item),
// and the first page's JavaScript gzipped. Prints the median and the slowest beside their goals, with the
// machine's load; never asserts and is never part of the tests (test/console/console.test.ts prints the
// same figures, once, under the suite's load).
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { freePort } from '../test/support/free-port.ts';
import { bin, startPlatformCommand } from './platform-command.ts';

const run = promisify(execFile);
const TIMES = Number(process.env.BENCH_TIMES ?? 15);
// The full browser, as a user's page loads are timed (the tests use the headless build: docs/console.md).
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HOME_GOAL_MS = 1500;
const SCRIPT_BUDGET_KIB = 250;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

async function main() {
  const load = os.loadavg()[0]?.toFixed(1);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-bench-console-'));
  await fs.chmod(dataDir, 0o755);
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    PORT: String(port),
    API_INTERNAL_PORT: String(await freePort()),
    RUNNER_PORT: String(await freePort()),
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
  };
  const stop = await startPlatformCommand(env);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
  const homes: number[] = [];
  let scripts = { files: 0, gzipBytes: 0 };
  try {
    const command = (args: string[]) => run(process.execPath, [bin('platform'), ...args], { env });
    const token = (await command(['token', '--tenant', 'bench', '--role', 'admin'])).stdout.trim();
    // Home's data: an activity item (a workflow published).
    const api = `http://127.0.0.1:${port}`;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const body = {
      steps: [
        {
          id: 'decide',
          type: 'decide',
          branches: [{ when: { path: 'score', gt: 0 }, outcome: 'review' }],
          otherwise: 'approve',
        },
      ],
    };
    await fetch(`${api}/workflow-definitions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ key: 'bench', body }),
    });
    await fetch(`${api}/workflow-definitions/bench/publish`, {
      method: 'POST',
      headers: { authorization: headers.authorization },
    });
    const link = (await command(['console', '--tenant', 'bench', '--role', 'admin'])).stdout.trim();

    for (let i = 0; i < TIMES; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const bodies: Promise<Buffer>[] = [];
      page.on('response', (response) => {
        if (response.request().resourceType() === 'script') bodies.push(response.body());
      });
      const started = performance.now();
      await page.goto(link);
      await page.getByRole('region', { name: 'Activity' }).getByRole('link').first().waitFor();
      homes.push(performance.now() - started);
      if (i === 0) {
        const all = await Promise.all(bodies);
        scripts = { files: all.length, gzipBytes: all.reduce((sum, b) => sum + gzipSync(b).length, 0) };
      }
      await context.close();
    }
  } finally {
    await browser.close();
    await stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }

  const kib = scripts.gzipBytes / 1024;
  const home = median(homes);
  const slowest = Math.max(...homes);
  const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
  process.stdout.write(
    [
      `console, first page (load average ${load} on ${os.cpus().length} cores; ${TIMES} fresh browser contexts)`,
      `  JavaScript: ${scripts.files} file(s), ${kib.toFixed(1)} KiB gzipped   budget ≤ ${SCRIPT_BUDGET_KIB} KiB: ${verdict(kib <= SCRIPT_BUDGET_KIB)}`,
      `  Home with data after the link: median ${Math.round(home)} ms, slowest ${Math.round(slowest)} ms   goal ≤ ${HOME_GOAL_MS} ms: ${verdict(home <= HOME_GOAL_MS)} (median)`,
      '',
    ].join('\n'),
  );
}

await main();
