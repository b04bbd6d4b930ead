// A worker of bench/outbound.ts, in a process of its own: `platform start --role worker` exactly as a
// deployment runs it (src/cli/start.ts: the trail reader and the sender of outbound webhooks beside the
// run workflows and sweeps), so its CPU is its own. Every SQL statement it sends is timed by its text (the
// first 160 characters, whitespace folded, parameter lists as $n): from the client's query to its answer,
// in this process's clock, so a statement's time includes the wait for the event loop. It talks to the bench over IPC:
// `ready` once started, then its CPU and the statement times for each question ('reset' starts them anew).
// SIGTERM stops it as it stops a deployment's worker.
import pg from 'pg';
import { start } from '../src/cli/start.ts';
import { loadConfig } from '../src/config.ts';

export interface StatementTime {
  text: string;
  count: number;
  totalMs: number;
  maxMs: number;
}

export type OutboundWorkerMessage =
  | { kind: 'ready' }
  | { kind: 'usage'; cpuMs: number; statements: StatementTime[] };

const times = new Map<string, StatementTime>();
const record = (text: string, ms: number) => {
  let entry = times.get(text);
  if (!entry) {
    entry = { text, count: 0, totalMs: 0, maxMs: 0 };
    times.set(text, entry);
  }
  entry.count += 1;
  entry.totalMs += ms;
  entry.maxMs = Math.max(entry.maxMs, ms);
};

const clientQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const [first] = args;
  const raw = typeof first === 'string' ? first : ((first as { text?: string } | null)?.text ?? '?');
  const text = raw
    .replace(/\s+/g, ' ')
    .replace(/\$\d+(, \$\d+)*/g, '$n')
    .trim()
    .slice(0, 160);
  const started = performance.now();
  const done = () => record(text, performance.now() - started);
  const last = args.length - 1;
  const callback = args[last];
  if (typeof callback === 'function') {
    args[last] = (...results: unknown[]) => {
      done();
      return (callback as (...r: unknown[]) => unknown)(...results);
    };
    return (clientQuery as (...a: unknown[]) => unknown).apply(this, args);
  }
  const answer = (clientQuery as (...a: unknown[]) => unknown).apply(this, args);
  if (answer && typeof (answer as Promise<unknown>).then === 'function')
    (answer as Promise<unknown>).then(done, done);
  return answer;
} as typeof clientQuery;

const send = (message: OutboundWorkerMessage) => process.send?.(message);
process.on('message', (question: { reset: boolean }) => {
  const cpu = process.cpuUsage();
  send({ kind: 'usage', cpuMs: (cpu.user + cpu.system) / 1000, statements: [...times.values()] });
  if (question.reset) times.clear();
});

await start(loadConfig(), 'worker');
send({ kind: 'ready' });
