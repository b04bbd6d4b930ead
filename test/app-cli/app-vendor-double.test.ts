// `app vendor-double` as a newcomer runs it (the package bin, its own process): the README's curl
// switches it into an outage and back over /__double/outage, and it prints a line for each switch and
// each request, the outage that answered it named.
import { afterEach, expect, it } from 'vitest';
import { baseEnv, cleanUpProcesses, signal, startVendorDoubleCommand } from '../support/processes.ts';

afterEach(cleanUpProcesses);

it('switches into an outage and back over its control route, printing each switch', async () => {
  const vendor = await startVendorDoubleCommand(0, baseEnv({}));
  const url = /listening on (http:\/\/\S+)/.exec(vendor.stdout())?.[1];
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  const outage = `${url}/__double/outage`;

  const switched = await fetch(outage, {
    method: 'POST',
    body: JSON.stringify({ mode: 'unavailable', retryAfterSeconds: 30 }),
  });
  expect(await switched.json()).toEqual({
    outage: { mode: 'unavailable', status: 503, retryAfterSeconds: 30 },
    held: 0,
  });
  const down = await fetch(`${url}/hello`);
  expect([down.status, down.headers.get('retry-after'), await down.json()]).toEqual([
    503,
    '30',
    { error: 'the vendor double is unavailable (an unavailable outage)', outage: 'unavailable' },
  ]);

  const refused = await fetch(outage, { method: 'POST', body: '{"mode":"down"}' });
  expect([refused.status, await refused.json()]).toEqual([
    400,
    { error: 'mode must be one of unavailable, timeout, final, not "down"' },
  ]);

  expect(await (await fetch(outage, { method: 'DELETE' })).json()).toEqual({ outage: null, held: 0 });
  const up = await fetch(`${url}/hello?x=1`);
  expect(await up.json()).toMatchObject({ received: { method: 'GET', path: '/hello', query: { x: '1' } } });

  await expect
    .poll(() =>
      vendor
        .stderr()
        .split('\n')
        .filter(Boolean)
        .map((line) => line.replace(/^\S+ /, '')),
    )
    .toEqual([
      'outage unavailable: every request answers 503 with Retry-After 30 until DELETE /__double/outage',
      expect.stringMatching(
        /^GET \/hello \{"query":\{\},"headers":\{.*\},"body":""\} \(outage unavailable\)$/,
      ),
      'outage over: echoing every request again',
      expect.stringMatching(/^GET \/hello \{"query":\{"x":"1"\},.*"body":""\}$/),
    ]);
  signal(vendor.child, 'SIGTERM');
  expect((await vendor.exited).code).toBe(0);
}, 60_000);
