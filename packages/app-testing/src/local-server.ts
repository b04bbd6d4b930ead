// A small HTTP server on 127.0.0.1 with a free port, shared by the doubles and the documents route.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalServer {
  /** http://127.0.0.1:<port> */
  url: string;
  /** 127.0.0.1:<port>: the host string to approve for an app that calls this server. */
  host: string;
  port: number;
  close(): Promise<void>;
}

export interface IncomingRequest {
  method: string;
  /** The path without the query. */
  path: string;
  query: Record<string, string>;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /**
   * Aborts when the connection closes before the answer is sent (the client gave up, or close()): a
   * handler holding a request back lets go of it then; what it answers afterwards is not sent.
   */
  signal: AbortSignal;
}

export interface OutgoingResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

export type Handler = (request: IncomingRequest) => Promise<OutgoingResponse> | OutgoingResponse;

/** Reads the whole request, hands it to the handler and sends its answer (500 with the error's message if it throws). */
export async function startLocalServer(handler: Handler, port = 0): Promise<LocalServer> {
  const sockets = new Set<import('node:net').Socket>();
  // Each response until it closes: close() waits for them, so every aborted signal has fired by then.
  const responses = new Set<Promise<void>>();
  const server = http.createServer((req, res) => {
    const gone = new AbortController();
    const closed = new Promise<void>((resolve) =>
      res.on('close', () => {
        if (!res.writableFinished) gone.abort();
        responses.delete(closed);
        resolve();
      }),
    );
    responses.add(closed);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      let answer: OutgoingResponse;
      try {
        answer = await handler({
          method: req.method ?? 'GET',
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers,
          body: Buffer.concat(chunks),
          signal: gone.signal,
        });
      } catch (error) {
        answer = { status: 500, body: error instanceof Error ? error.message : String(error) };
      }
      if (gone.signal.aborted) return;
      try {
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body === undefined ? undefined : Buffer.from(answer.body));
      } catch (error) {
        // A header value Node will not send (a test's own mistake): answer that instead.
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(error instanceof Error ? error.message : String(error));
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    host: `127.0.0.1:${bound}`,
    port: bound,
    close: async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      // Kept-alive connections of the runner's pool would hold the server open.
      for (const socket of sockets) socket.destroy();
      await Promise.all([stopped, ...responses]);
    },
  };
}

export function jsonResponse(status: number, value: unknown, headers: Record<string, string> = {}) {
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(value),
  };
}
