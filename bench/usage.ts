// What a stretch of a benchmark used: the CPU of this process, of PostgreSQL (the embedded server's
// processes, /proc) and of every other process on the machine (/proc/stat), so a figure measured while
// the machine was busy shows itself; the SQL statements this process sent and the database's commits.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';

export interface Usage {
  /** CPU ms of this process (every thread: api, worker, runner). */
  own: number;
  /** CPU ms of PostgreSQL. */
  postgres: number;
  /** CPU ms of every other process on the machine. */
  others: number;
  /** Wall ms. */
  wall: number;
  statements: number;
  commits: number;
  /** Transactions that wrote (given an id), when the bench counts them: commits that flush WAL. */
  writes: number;
}

let statements = 0;
let tallying = false;
/** Statements by text (the first 150 characters), while counting with a tally. */
export const statementTally = new Map<string, number>();

/** The statements counted so far (a process that reports them to another: bench/webhooks-worker.ts). */
export const statementsSent = (): number => statements;

/** Starts or stops tallying by text (countStatements' `tally` is where it starts). */
export function tallyStatements(on: boolean): void {
  tallying = on;
}

/**
 * Counts every SQL statement this process sends through any pg client (a platform's pool and DBOS's
 * alike), save those of clients whose application_name is `except` (the bench's own poller):
 * Pool.query goes through Client.query, so each statement counts once. With `tally`, also by text.
 */
export function countStatements(except: string, tally: boolean): void {
  tallying = tally;
  const clientQuery = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const params = (this as unknown as { connectionParameters?: { application_name?: string } })
      .connectionParameters;
    if (params?.application_name !== except) {
      statements++;
      if (tallying) {
        const [first] = args;
        const text = typeof first === 'string' ? first : ((first as { text?: string } | null)?.text ?? '?');
        const key = text.replace(/\s+/g, ' ').slice(0, 150);
        statementTally.set(key, (statementTally.get(key) ?? 0) + 1);
      }
    }
    return (clientQuery as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof clientQuery;
}

/** Starts measuring a stretch; the function returned answers what it used. */
export async function startMeter(
  postmaster: number,
  commits: () => Promise<number>,
  writes: () => Promise<number> = async () => 0,
) {
  const started = performance.now();
  const ours = process.cpuUsage();
  const machine = machineJiffies();
  const pgStart = postgresJiffies(postmaster);
  const statementsStart = statements;
  const commitsStart = await commits();
  const writesStart = await writes();
  return async (): Promise<Usage> => {
    const committed = (await commits()) - commitsStart;
    const wrote = (await writes()) - writesStart;
    const sent = statements - statementsStart;
    const wall = performance.now() - started;
    const used = process.cpuUsage(ours);
    const own = (used.user + used.system) / 1000;
    const postgres = (postgresJiffies(postmaster) - pgStart) * TICK_MS;
    const now = machineJiffies();
    const busy = now && machine ? (now.busy - machine.busy) * TICK_MS : Number.NaN;
    return {
      own,
      postgres,
      others: Math.max(0, busy - own - postgres),
      wall,
      statements: sent,
      commits: committed,
      writes: wrote,
    };
  };
}

const TICK_MS = 10; // USER_HZ 100

/** The pid of the embedded PostgreSQL under a bench's directory. */
export function postmasterOf(dir: string): number {
  return Number(readFileSync(path.join(dir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** Busy and total jiffies of the machine, every core (/proc/stat, Linux only). */
function machineJiffies(): { busy: number; total: number } | null {
  try {
    const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/);
    const values = fields.slice(1, 9).map(Number); // user nice system idle iowait irq softirq steal
    const total = values.reduce((a, b) => a + b, 0);
    return { busy: total - (values[3] ?? 0) - (values[4] ?? 0), total };
  } catch {
    return null;
  }
}

/** Jiffies PostgreSQL used: the postmaster (with its reaped children) and every live child. */
function postgresJiffies(postmaster: number): number {
  let sum = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // After the command's closing parenthesis: state ppid … utime(11) stime(12) cutime(13) cstime(14).
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pid = Number(entry);
    if (pid !== postmaster && Number(f[1]) !== postmaster) continue;
    sum += Number(f[11]) + Number(f[12]);
    if (pid === postmaster) sum += Number(f[13]) + Number(f[14]);
  }
  return sum;
}
