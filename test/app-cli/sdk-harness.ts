// Runs the SDK test app (test/fixtures/sdk-app, compiled at test time with compileApp) through the real
// runner pieces: inspectUpload, executeExport with a fresh sandboxed instance per call, the real host
// functions (http_request and ai through the egress core, on loopback as a private-network stack allows).
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { compileApp, SDK_DIR } from '../../src/app-cli/compile.ts';
import type { Manifest } from '../../src/module/manifest.ts';
import { capMemory, PAGES_PER_MIB } from '../../src/module/wasm.ts';
import type { EgressSettings } from '../../src/runner/egress/context.ts';
import { AgentPool } from '../../src/runner/egress/pool.ts';
import {
  type ExportOutcome,
  type ExportRequest,
  executeExport,
  parsedOutcome,
} from '../../src/runner/execute.ts';
import { aiFor } from '../../src/runner/host/ai.ts';
import { bindHostFunctions } from '../../src/runner/host/binding.ts';
import type { CacheEntry } from '../../src/runner/host/call-state.ts';
import { httpRequestFor } from '../../src/runner/host/http.ts';
import { inspectUpload } from '../../src/runner/inspect.ts';
import { SandboxPool } from '../../src/runner/threads/sandbox-pool.ts';

export const SDK_APP_DIR = path.resolve(import.meta.dirname, '../fixtures/sdk-app');
const CACHE = path.resolve(import.meta.dirname, '../../node_modules/.cache/apps-platform-fixtures');

async function sourcesHash(dirs: string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const dir of dirs) {
    for (const name of (await fs.readdir(dir)).sort())
      hash.update(name).update(await fs.readFile(path.join(dir, name)));
  }
  return hash.digest('hex').slice(0, 16);
}

/** The SDK test app's module, compiled once per change of its sources or the SDK's. */
export async function buildSdkApp(): Promise<Uint8Array> {
  const out = path.join(
    CACHE,
    `sdk-app-${await sourcesHash([path.join(SDK_APP_DIR, 'assembly'), SDK_DIR])}.wasm`,
  );
  try {
    return new Uint8Array(await fs.readFile(out));
  } catch {}
  const bytes = await compileApp(SDK_APP_DIR);
  await fs.mkdir(CACHE, { recursive: true });
  await fs.writeFile(out, bytes);
  return bytes;
}

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Handler = (request: Received) => {
  status?: number;
  headers?: Record<string, string>;
  body: string | Buffer;
};

/** A loopback server; it stands for a vendor, a model vendor or the api's internal listener. */
export async function startServer(handler: Handler) {
  const seen: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(request);
      const answer = handler(request);
      res.writeHead(answer.status ?? 200, answer.headers ?? {}).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface CallOptions {
  config?: Record<string, unknown>;
  secrets?: Record<string, string>;
  hosts?: string[];
  cache?: CacheEntry[];
  documents?: { token: string } | null;
  callbackUrl?: string;
  timeoutMs?: number;
}

export interface SdkApp {
  manifest: Manifest;
  sha256: string;
  call(
    exportName: ExportRequest['exportName'],
    fields: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<ExportOutcome>;
  invoke(action: string, input: unknown, options?: CallOptions): Promise<ExportOutcome>;
  close(): Promise<void>;
}

/** Loads the module as the platform would run it; apiInternalUrl serves document_read. */
export async function loadSdkApp(apiInternalUrl = 'http://127.0.0.1:9'): Promise<SdkApp> {
  const bytes = await buildSdkApp();
  const verdict = await inspectUpload(bytes);
  if (!verdict.accepted) throw new Error(`sdk-app refused: ${verdict.message}`);
  const capped = capMemory(bytes, verdict.manifest.memoryMiB);
  if (!capped.ok) throw new Error(capped.message);
  const loaded = {
    sha256: verdict.sha256,
    module: await WebAssembly.compile(capped.bytes),
    maxPages: verdict.manifest.memoryMiB * PAGES_PER_MIB,
  };
  const agents = new AgentPool();
  const settings: EgressSettings = {
    agents,
    allowPrivateNetworks: true,
    // vendor.test stands for the loopback servers: the names resolve only here.
    lookup: async (hostname) => {
      if (hostname === 'vendor.test' || hostname === 'model.test')
        return [{ address: '127.0.0.1', family: 4 }];
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    },
  };
  // Two threads: an app's test may run calls side by side; every call still gets a fresh instance.
  const sandbox = new SandboxPool({ threads: 2, warmCapacity: 0, warmIdleMs: 60_000 });
  const deps = {
    modules: { get: async () => loaded },
    sandbox,
    apiInternalUrl,
    bind: (state: Parameters<typeof bindHostFunctions>[0]) =>
      bindHostFunctions(state, { httpRequest: httpRequestFor(settings), ai: aiFor(settings) }),
  };
  const call: SdkApp['call'] = async (exportName, fields, options = {}) =>
    parsedOutcome(
      await executeExport(deps, {
        exportName,
        sha256: loaded.sha256,
        call: {
          id: `call-${Math.random().toString(36).slice(2)}`,
          tenantId: 'tenant-a',
          callbackUrl: options.callbackUrl,
        },
        config: options.config ?? {},
        secrets: options.secrets ?? {},
        hosts: options.hosts ?? [],
        cache: options.cache ?? [],
        documents: options.documents ?? null,
        timeoutMs: options.timeoutMs ?? 15_000,
        fields,
      }),
    );
  return {
    manifest: verdict.manifest,
    sha256: verdict.sha256,
    call,
    invoke: (action, input, options) => call('invoke', { action, idempotencyKey: 'key-1', input }, options),
    close: async () => {
      await sandbox.close();
      await agents.close();
    },
  };
}
