// `platform start` as a person runs it, for the benches that measure what a person waits for (the
// commands' start-up, the console's first page): the bin in its own process group, ready once it printed
// its block; stopped as Ctrl-C stops it.
import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
export const bin = (name: string) => path.join(ROOT, 'bin', `${name}.js`);

/** Starts `platform start` with `env` (a fresh DATA_DIR, free ports); answers its stop. */
export async function startPlatformCommand(env: NodeJS.ProcessEnv): Promise<() => Promise<void>> {
  const child = spawn(process.execPath, [bin('platform'), 'start'], { env, cwd: ROOT, detached: true });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr.resume();
  await new Promise<void>((resolve, reject) => {
    const check = () => (/Get a token: [^\n]*\n/.test(out) ? resolve() : undefined);
    child.stdout.on('data', check);
    child.once('exit', (code) => reject(new Error(`platform start exited ${code}:\n${out}`)));
  });
  return async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-(child.pid as number), 'SIGINT');
    await exited;
  };
}
