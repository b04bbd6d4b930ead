// The runner in a process of its own, for tests that watch what a module does to the process: its
// resident memory, its OS threads, whether it is still alive. Run by startRunnerProcess (runner.ts) with
// the runner's settings in its environment; prints one JSON line { url } once it listens.
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { startRunnerFromConfig } from '../../src/runner/index.ts';

const config = loadConfig({ ...process.env, DATABASE_URL: 'postgres://unused/unused' } as Record<
  string,
  string
>);
const runner = await startRunnerFromConfig(config, pino({ level: 'silent' }), {
  allowPrivateNetworks: true,
});
process.stdout.write(`${JSON.stringify({ url: runner.url })}\n`);
process.on('SIGTERM', () => {
  void runner.close().finally(() => process.exit(0));
});
