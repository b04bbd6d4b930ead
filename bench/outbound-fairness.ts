// Rows 5 and 6 of bench/outbound.ts: a slow endpoint slows only itself (docs/outbound-webhooks.md "Fair
// sending"). The bench tenant raises a steady load (FAIR_RATE rows a second, each to its ENDPOINTS
// endpoints on the receiver process) for FAIR_SECONDS twice, with the same workers:
//   5. alone — the floor: the lag of its deliveries beyond the hold with nothing else sent;
//   6. beside a hanging tenant — a second tenant with 16 endpoints on a listener in this process that
//      accepts every connection and never answers, raising HANG_RATE rows a second from a hold and a pass
//      before the measured load until its end, so each of its deliveries holds a send for the poster's
//      10 s timeout (16 × HANG_RATE new ones a second, far beyond the window without shares).
// Goal: the bench tenant's lag p99 beside the hanging tenant within 2 s of its lag alone.
import net from 'node:net';
import type { Database } from '../src/db/pool.ts';
import { ensureTenant } from '../src/tenants/service.ts';
import type { Row } from './outbound-report.ts';
import {
  addEndpoints,
  firstArrivals,
  type ReceiverProcess,
  type Stretch,
  sleep,
  steadyLoad,
  until,
} from './outbound-support.ts';

export const FAIRNESS_GOAL_MS = 2000;
const HANGING_ENDPOINTS = 16;

export interface FairnessSetup {
  database: Database;
  key: Buffer;
  tenantId: string;
  endpoints: number;
  receiver: ReceiverProcess;
  rate: number;
  hangRate: number;
  seconds: number;
  holdMs: number;
  tickMs: number;
  meter: () => Promise<() => Promise<Stretch>>;
  load: () => number;
}

export interface Fairness {
  alone: Row;
  beside: Row;
  /** Connections the hanging listener took, and the hanging tenant's rows raised. */
  hungConnections: number;
  hangingRows: number;
}

/** A listener that takes every connection and never answers (its sockets closed on stop). */
async function startHangingListener() {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The bench tenant's steady load for `seconds`; its deliveries' lags beyond the hold, once all arrived. */
async function measuredLoad(setup: FairnessSetup, name: string): Promise<Row> {
  const committed = new Map<string, number>();
  const rowLoad = setup.load();
  const stop = await setup.meter();
  const load = steadyLoad(setup.database, setup.tenantId, setup.rate, setup.tickMs, committed);
  await sleep(setup.seconds * 1000);
  await load.stop();
  const expected = load.raised() * setup.endpoints;
  const arrived = async () => {
    await setup.receiver.poll();
    return firstArrivals(setup.receiver.arrivals, committed).length;
  };
  await until(`${name}: every delivery`, arrived, expected, 3 * 60_000, 250);
  const stretch = await stop();
  const firsts = firstArrivals(setup.receiver.arrivals, committed);
  const lags = firsts.map((a) => a[3] - (committed.get(a[0]) as number) - setup.holdMs);
  const times = firsts.map((a) => a[3]);
  return {
    name,
    n: firsts.length,
    perSecond: (firsts.length * 1000) / Math.max(1, Math.max(...times) - Math.min(...times)),
    lags,
    stretch,
    load: rowLoad,
  };
}

export async function measureFairness(setup: FairnessSetup): Promise<Fairness> {
  const alone = await measuredLoad(setup, `5. alone: ${setup.rate} rows/s × ${setup.endpoints} endpoints`);

  const listener = await startHangingListener();
  try {
    const { tenant } = await ensureTenant(setup.database.db, 'bench-hanging');
    await addEndpoints(
      setup.database,
      setup.key,
      tenant.id,
      `http://127.0.0.1:${listener.port}`,
      HANGING_ENDPOINTS,
    );
    const hanging = steadyLoad(setup.database, tenant.id, setup.hangRate, setup.tickMs, new Map());
    // Its first deliveries are hanging (a hold and a trail pass later) before the measured load starts.
    await sleep(setup.holdMs + 4000);
    const beside = await measuredLoad(setup, `6. beside ${HANGING_ENDPOINTS} hanging endpoints of a tenant`);
    await hanging.stop();
    return { alone, beside, hungConnections: listener.connections(), hangingRows: hanging.raised() };
  } finally {
    await listener.stop();
  }
}
