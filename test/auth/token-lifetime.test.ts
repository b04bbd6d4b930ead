// The lifetime `platform token --expires-in` may mint: a positive duration of at most 30 days, checked
// before the key, the database or the tenant is touched.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lifetimeSeconds, MAX_LOCAL_TOKEN_LIFETIME_SECONDS } from '../../src/auth/tokens.ts';
import { mintToken, UsageError } from '../../src/cli/token.ts';
import { loadConfig } from '../../src/config.ts';

describe('lifetimeSeconds', () => {
  it('reads the durations jose takes, in seconds', () => {
    expect(lifetimeSeconds('30m')).toBe(1800);
    expect(lifetimeSeconds('12h')).toBe(43_200);
    expect(lifetimeSeconds('12 hours')).toBe(43_200);
    expect(lifetimeSeconds('7d')).toBe(604_800);
    expect(lifetimeSeconds('2w')).toBe(1_209_600);
    expect(lifetimeSeconds('90s')).toBe(90);
    expect(lifetimeSeconds('1.5h')).toBe(5400);
    expect(lifetimeSeconds('1y')).toBe(31_557_600);
  });

  it('is null for anything else, zero and negative included', () => {
    for (const text of ['forever', '-5m', '0h', '5m ago', '', '12', 'h'])
      expect(lifetimeSeconds(text)).toBeNull();
  });
});

describe('platform token --expires-in', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-lifetime-'));
  });
  afterAll(async () => fs.rm(dataDir, { recursive: true, force: true }));

  it('refuses more than 30 days, before anything is written', async () => {
    expect(MAX_LOCAL_TOKEN_LIFETIME_SECONDS).toBe(30 * 24 * 3600);
    const config = loadConfig({ DATA_DIR: dataDir });
    for (const expiresIn of ['31d', '5w', '1y', '721h']) {
      const minting = mintToken(config, { tenant: 'acme', role: 'admin', permission: [], expiresIn });
      await expect(minting).rejects.toThrow(UsageError);
      await expect(minting).rejects.toThrow(/--expires-in: .*at most 30d/);
    }
    expect(await fs.readdir(dataDir)).toEqual([]);
  });
});
