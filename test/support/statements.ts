// The statements every pg client of this process sends (a test's platform runs in its process, DBOS's
// pool among the clients), for a test that counts or reads them: pg's Client.query is wrapped while
// anything listens, and the query it wrapped (the telemetry's, when it is on) is put back when the last
// listener stops.
import pg from 'pg';

type Listener = (text: string) => void;
type Query = typeof pg.Client.prototype.query;

const listeners = new Set<Listener>();
let unwrapped: Query = pg.Client.prototype.query;

function wrapped(this: pg.Client, ...args: unknown[]) {
  const [first] = args;
  const text = typeof first === 'string' ? first : ((first as { text?: string } | null)?.text ?? '');
  for (const listener of listeners) listener(text);
  return (unwrapped as (...a: unknown[]) => unknown).apply(this, args);
}

/** Calls `listener` with the text of every statement sent from now on; answers how to stop. */
export function watchStatements(listener: Listener): () => void {
  if (listeners.size === 0) {
    unwrapped = pg.Client.prototype.query;
    pg.Client.prototype.query = wrapped as Query;
  }
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) pg.Client.prototype.query = unwrapped;
  };
}

/** What `body` answered, and the statements sent while it ran, in order. */
export async function statementsWhile<T>(body: () => Promise<T>): Promise<{ value: T; sent: string[] }> {
  const sent: string[] = [];
  const stop = watchStatements((text) => sent.push(text));
  try {
    return { value: await body(), sent };
  } finally {
    stop();
  }
}
