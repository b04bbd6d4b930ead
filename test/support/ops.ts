// The real `ops` command run in-process on a test's database: the exit code and what it printed.
import { PassThrough, Readable } from 'node:stream';
import { runOps } from '../../src/ops/program.ts';

export interface OpsResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Collects what a stream is written, as text; `tty` makes it look like a terminal. */
function collector(tty = false) {
  const stream = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (tty) stream.isTTY = true;
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  return { stream, text: () => text };
}

export interface OpsOptions {
  env?: Record<string, string>;
  stdin?: Buffer;
  tty?: boolean;
}

/**
 * Runs `ops <argv>` against `databaseUrl` (DATABASE_URL), with `env` added. `stdin` feeds `-`; `tty`
 * makes standard error a terminal (progress lines).
 */
export async function ops(
  databaseUrl: string,
  argv: readonly string[],
  options: OpsOptions = {},
): Promise<OpsResult> {
  const stdout = collector();
  const stderr = collector(options.tty);
  const code = await runOps(argv, {
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: { DATABASE_URL: databaseUrl, ...options.env },
    ...(options.stdin ? { stdin: Readable.from([options.stdin]) } : {}),
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** `ops … --json` answered 0: its standard output parsed. */
export async function opsJson<T = unknown>(
  databaseUrl: string,
  argv: readonly string[],
  options: Omit<OpsOptions, 'tty'> = {},
): Promise<T> {
  const result = await ops(databaseUrl, [...argv, '--json'], options);
  if (result.code !== 0) throw new Error(`ops ${argv.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}
