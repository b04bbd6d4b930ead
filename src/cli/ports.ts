// The ports a start will listen on, checked before anything starts, so that one message names every port
// another program holds (beside another platform, all of them are) instead of one per failed start.
import net from 'node:net';
import type { Config, Role } from '../config.ts';

export interface Listener {
  /** The setting that chose the port. */
  setting: string;
  host: string;
  port: number;
}

/** The role's listeners with a fixed port (0, any free port, cannot be taken). Pure. */
export function listenersOf(config: Config, role: Role): Listener[] {
  const api = role === 'api' || role === 'all';
  const runnerHost = config.mode === 'embedded' ? '127.0.0.1' : config.host;
  const listeners: (Listener | null)[] = [
    api ? { setting: 'PORT', host: config.host, port: config.port } : null,
    api ? { setting: 'API_INTERNAL_PORT', host: config.internalHost, port: config.internalPort } : null,
    role === 'runner' || role === 'all'
      ? { setting: 'RUNNER_PORT', host: runnerHost, port: config.runnerPort }
      : null,
    (role === 'worker' || role === 'all') && config.workerHealthPort !== null
      ? { setting: 'WORKER_HEALTH_PORT', host: config.host, port: config.workerHealthPort }
      : null,
    ...metricsListeners(config, role),
  ];
  return listeners.filter((listener): listener is Listener => listener !== null && listener.port > 0);
}

/**
 * The metrics exposition of every role, and the engine's metrics of the worker on the port after it
 * (docs/telemetry.md); both on every interface, and only when telemetry is on. Pure.
 */
function metricsListeners(config: Config, role: Role): Listener[] {
  const { enabled, metricsPort } = config.telemetry;
  if (!enabled || metricsPort === null || metricsPort === 0) return [];
  const service = { setting: 'METRICS_PORT', host: '0.0.0.0', port: metricsPort };
  const worker = role === 'worker' || role === 'all';
  return worker
    ? [service, { setting: 'METRICS_PORT + 1', host: '0.0.0.0', port: metricsPort + 1 }]
    : [service];
}

/** `A`, `A and B`, `A, B and C`. */
function spoken(items: string[]): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** One line naming every taken port and the settings to change. Pure. */
export function takenPortsMessage(taken: Pick<Listener, 'setting' | 'port'>[]): string {
  const ports = spoken(taken.map(({ setting, port }) => `${setting} ${port}`));
  const settings = spoken(taken.map(({ setting }) => setting));
  return taken.length === 1
    ? `${ports} is in use by another program; set ${settings} to a free port`
    : `${ports} are in use by other programs; set ${settings} to free ports`;
}

/** Whether another program holds host:port now; any other failure is left to the real listen to report. */
function held({ host, port }: Listener): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'EADDRINUSE'));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(false)));
  });
}

/** The listeners whose port another program holds now, in the order given; one probe at a time. */
export async function takenListeners(listeners: Listener[]): Promise<Listener[]> {
  const taken: Listener[] = [];
  for (const listener of listeners) if (await held(listener)) taken.push(listener);
  return taken;
}
