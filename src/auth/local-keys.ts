// Embedded mode keeps its generated secrets and the local token-signing key in DATA_DIR,
// so `platform token` and a running platform on the same DATA_DIR agree.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Config } from '../config.ts';

export const LOCAL_ISSUER = 'apps-platform-local';
export const LOCAL_AUDIENCE = 'apps-platform';
export const LOCAL_KEY_ID = 'local-1';

interface LocalSecretsFile {
  appRunnerToken: string;
  appCallTokenSecret: string;
  secretStoreKey: string;
  signingKey: { privateJwk: JWK; publicJwk: JWK };
}

export interface LocalKeys {
  privateJwk: JWK;
  publicJwk: JWK;
}

function secretsPath(dataDir: string): string {
  return path.join(dataDir, 'secrets.json');
}

async function generate(): Promise<LocalSecretsFile> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return {
    appRunnerToken: randomBytes(32).toString('base64url'),
    appCallTokenSecret: randomBytes(32).toString('base64url'),
    secretStoreKey: randomBytes(32).toString('base64'),
    signingKey: {
      privateJwk: { ...(await exportJWK(privateKey)), alg: 'ES256', kid: LOCAL_KEY_ID },
      publicJwk: { ...(await exportJWK(publicKey)), alg: 'ES256', kid: LOCAL_KEY_ID },
    },
  };
}

/** Reads DATA_DIR/secrets.json, creating it (mode 0600) the first time; a concurrent creator wins cleanly. */
export async function readOrCreateLocalSecrets(dataDir: string): Promise<LocalSecretsFile> {
  const file = secretsPath(dataDir);
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as LocalSecretsFile;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await fs.mkdir(dataDir, { recursive: true });
  const fresh = await generate();
  try {
    await fs.writeFile(file, JSON.stringify(fresh, null, 2), { mode: 0o600, flag: 'wx' });
    return fresh;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return JSON.parse(await fs.readFile(file, 'utf8')) as LocalSecretsFile;
  }
}

/** Fills the secrets embedded mode may generate; settings given in the environment always win. */
export async function withLocalSecrets(config: Config): Promise<{ config: Config; keys: LocalKeys | null }> {
  if (config.mode !== 'embedded') return { config, keys: null };
  const local = await readOrCreateLocalSecrets(config.dataDir);
  return {
    config: {
      ...config,
      appRunnerToken: config.appRunnerToken ?? local.appRunnerToken,
      appCallTokenSecret: config.appCallTokenSecret ?? local.appCallTokenSecret,
      secretStoreKey: config.secretStoreKey ?? Buffer.from(local.secretStoreKey, 'base64'),
    },
    keys: local.signingKey,
  };
}
