// Embedded mode keeps its generated secrets, the local token-signing key and the embedded PostgreSQL's
// password in DATA_DIR/secrets.json (mode 0600), so `platform token` and a running platform on the same
// DATA_DIR agree. jose is loaded only to make a new file: the database password is read by every command.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { JWK } from 'jose';
import { writeFileAtomically } from '../atomic-file.ts';
import type { Config } from '../config.ts';

export const LOCAL_ISSUER = 'apps-platform-local';
export const LOCAL_AUDIENCE = 'apps-platform';
export const LOCAL_KEY_ID = 'local-1';

interface LocalSecretsFile {
  appRunnerToken: string;
  appCallTokenSecret: string;
  secretStoreKey: string;
  signingKey: { privateJwk: JWK; publicJwk: JWK };
  /** The embedded PostgreSQL superuser's password; absent in files written before it was generated. */
  databasePassword?: string;
}

export interface LocalKeys {
  privateJwk: JWK;
  publicJwk: JWK;
}

function secretsPath(dataDir: string): string {
  return path.join(dataDir, 'secrets.json');
}

function newDatabasePassword(): string {
  return randomBytes(32).toString('base64url');
}

async function generate(): Promise<LocalSecretsFile> {
  const { exportJWK, generateKeyPair } = await import('jose');
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return {
    databasePassword: newDatabasePassword(),
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

/**
 * The embedded PostgreSQL's password, generated and added to secrets.json when the file has none (made
 * before the password was generated, or its line removed to rotate it: docs/operations.md). Called by
 * the one command that holds DATA_DIR's lock, so no other writer races it; the file is replaced whole
 * (written 0600 beside it, then renamed), so a reader never sees half of it.
 */
export async function readOrCreateDatabasePassword(dataDir: string): Promise<string> {
  const local = await readOrCreateLocalSecrets(dataDir);
  if (local.databasePassword) return local.databasePassword;
  const file = secretsPath(dataDir);
  const updated = { ...local, databasePassword: newDatabasePassword() };
  await writeFileAtomically(file, JSON.stringify(updated, null, 2), 0o600);
  return updated.databasePassword;
}

/** The embedded PostgreSQL's stored password, or null when DATA_DIR holds none (yet). */
export async function storedDatabasePassword(dataDir: string): Promise<string | null> {
  const text = await fs.readFile(secretsPath(dataDir), 'utf8').catch(() => null);
  if (text === null) return null;
  return (JSON.parse(text) as LocalSecretsFile).databasePassword ?? null;
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
