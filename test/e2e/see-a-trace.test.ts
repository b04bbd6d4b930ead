// The README's "See a run's trace", followed as printed, on a machine without Docker: terminal 1 runs the
// collector double (`npx app collector-double`), terminal 2 `npm start` with exactly the settings the
// README's start line names, terminal 3 the vendor double; then the fourth terminal's block runs in bash as
// it stands (with "Try an app"'s API, call and show), on free ports instead of 3000, 4010, 4318 and 9464.
// Its run completes with a traceUrl at the collector double, whose tree is the run's trace across the
// platform's process and the runner's, and the Prometheus line counts the run's app call.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.ts';
import {
  APP_BIN,
  baseEnv,
  cleanUpProcesses,
  removeTempDirs,
  run,
  startServingCommand,
} from '../support/processes.ts';
import { startReadmeStack } from './readme-stack.ts';
import { commandLines, readmeSection, shellBlocks, startSettings, tryAnAppHelpers } from './readme-text.ts';

afterEach(cleanUpProcesses);
afterAll(removeTempDirs);

const SLOW = 300_000;
const section = readmeSection("See a run's trace");
const [terminals = '', fourth = ''] = shellBlocks(section);
const helpers = tryAnAppHelpers();

/** The README's text with its fixed addresses moved to the ones this test holds. */
const moved = (text: string, ports: Record<string, string>) =>
  Object.entries(ports).reduce(
    (out, [from, to]) => out.replaceAll(`127.0.0.1:${from}`, `127.0.0.1:${to}`),
    text,
  );

describe("README: see a run's trace", () => {
  it('names the doubles it runs in terminals 1 and 3, and needs no Docker', () => {
    const lines = commandLines(terminals);
    expect(lines).toContain('npx app collector-double --port 4318');
    expect(lines).toContain('npx app vendor-double --port 4010');
    expect(terminals).not.toMatch(/docker/);
    expect(fourth).not.toMatch(/docker/);
  });

  it(
    'runs the fourth terminal as printed: a completed run whose traceUrl shows its trace tree, and its call counted',
    async () => {
      const collectorPort = await freePort();
      const metricsPort = await freePort();
      // Terminal 1: npx app collector-double --port <port>
      const collector = await startServingCommand(
        APP_BIN,
        ['collector-double', '--port', String(collectorPort)],
        baseEnv({}),
        'collector double',
      );
      expect(collector.stdout()).toBe(`collector double listening on http://127.0.0.1:${collectorPort}\n`);

      // Terminal 2: the README's settings and nothing else (a development stack's default would hide one
      // it forgot), on this test's ports.
      const settings = startSettings(moved(terminals, { 4318: String(collectorPort) }));
      expect(settings.METRICS_PORT).toBe('9464');
      const stack = await startReadmeStack('traces', 'apps-platform-e2e-trace-', {
        APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'false',
        ...settings,
        METRICS_PORT: String(metricsPort),
      });
      // Terminal 3: npx app vendor-double --port <port>
      const { host: vendorHost } = await stack.startVendor();

      // The fourth terminal, in bash, as printed.
      const api = new URL(stack.api);
      const script = moved(`${helpers}\n${fourth}`, {
        3000: api.port,
        4010: vendorHost.split(':')[1] as string,
        4318: String(collectorPort),
        9464: String(metricsPort),
      });
      const result = await run([], stack.env, { shell: `exec bash -c ${shellQuoted(script)}` });
      expect(result.stderr).toBe('');
      const out = result.stdout.split('\n');
      expect(out).toContain('{"name":"vendor","enabled":true}');
      expect(out).toContain('{"key":"traced","version":1}');
      expect(out).toContain('{"status":"published"}');
      const ran = out.find((line) => line.startsWith('{"status":"completed"')) ?? result.stdout;
      const traceUrl = JSON.parse(ran).traceUrl as string;
      expect(traceUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${collectorPort}/traces/[0-9a-f]{32}$`));
      expect(result.stdout).toContain('POST /v1/invoke  apps-platform-runner');
      expect(result.stdout).toMatch(
        /^service_app_invocation_duration_count\{[^}]*tenant="traces",app="http-connector",install="vendor",action="request",status="success"[^}]*\} 1$/m,
      );

      // The whole tree, once both processes have sent their spans: one root, the run under it, the
      // attempt's call on the runner under the worker's app.invoke.
      let tree = '';
      await expect
        .poll(
          async () => {
            tree = await (await fetch(traceUrl)).text();
            return tree.includes('workflow.run runs.workflow') && tree.includes('POST /v1/invoke');
          },
          { timeout: 60_000, interval: 200 },
        )
        .toBe(true);
      const lines = tree.trimEnd().split('\n');
      expect(lines[0], tree).toMatch(/^POST \/workflow-runs {2}apps-platform-all {2}\d+\.\d ms$/);
      expect(
        lines.slice(1).every((line) => /^[│├└ ]/.test(line)),
        tree,
      ).toBe(true);
      const depth = (name: string) => lines.find((line) => line.includes(name))?.search(/[^│├└─ ]/) ?? -1;
      expect(depth('workflow.run runs.workflow'), tree).toBe(3);
      expect(depth('screen:attempt:1'), tree).toBeGreaterThan(depth('workflow.run runs.workflow'));
      expect(depth('app.invoke'), tree).toBeGreaterThan(depth('screen:attempt:1'));
      expect(depth('POST /v1/invoke'), tree).toBeGreaterThan(depth('app.invoke'));
      // Terminal 1 printed the run's trace as it arrived.
      const traceId = traceUrl.split('/').pop();
      expect(collector.stderr()).toContain(
        `trace ${traceId} POST /workflow-runs (apps-platform-all): ${traceUrl}`,
      );

      const stopped = await stack.stop();
      expect(stopped.platform.code, stopped.platform.stderr).toBe(0);
    },
    SLOW,
  );
});

/** A text as one single-quoted shell word. */
function shellQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
