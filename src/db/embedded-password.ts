// The embedded PostgreSQL's password: random, kept in DATA_DIR/secrets.json (0600, src/auth/local-keys.ts),
// and handed to PostgreSQL only as a SCRAM verifier, so the plain password is written nowhere but there.
// A cluster whose role refuses it (made before the password was generated, when it was the fixed
// `postgres`; or secrets.json's line removed to rotate it) gets it set in single-user mode, which needs no
// login: the platform owns the cluster's files, as PostgreSQL's own superuser does.
import { spawn } from 'node:child_process';
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { openClient } from './client.ts';
import type { Owner } from './embedded-setup.ts';

/** The cluster's superuser, the role the platform connects as in embedded mode (docs/operations.md). */
export const DATABASE_USER = 'postgres';

/**
 * The SCRAM-SHA-256 verifier PostgreSQL stores for a password (RFC 5802, RFC 7677): given one, CREATE and
 * ALTER ROLE store it as it is. The passwords made here are base64url, which SASLprep leaves unchanged.
 */
export function scramVerifier(password: string, salt: Buffer = randomBytes(16), iterations = 4096): string {
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

/** Whether the server on the port lets the superuser in with the password (false: it refuses that password). */
export async function passwordAccepted(port: number, password: string): Promise<boolean> {
  const client = openClient({
    host: '127.0.0.1',
    port,
    user: DATABASE_USER,
    password,
    database: 'postgres',
    connectionTimeoutMillis: 30_000,
  });
  try {
    await client.connect();
    return true;
  } catch (error) {
    // invalid_password: any other failure (the server gone, say) is not an answer about the password.
    if ((error as { code?: string }).code === '28P01') return false;
    throw error;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Runs `use` with the path of a file holding `content`, readable by the cluster's owner alone: mode 0600
 * in a folder of its own (mode 0700, made by mkdtemp), both removed after, whatever happens.
 */
export async function withPrivateFile<T>(
  content: string,
  owner: Owner,
  use: (file: string) => Promise<T>,
): Promise<T> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-initdb-'));
  try {
    const file = path.join(dir, 'password');
    await fs.writeFile(file, `${content}\n`, { mode: 0o600, flag: 'wx' });
    if (owner.uid !== undefined) {
      const gid = owner.gid ?? owner.uid;
      await fs.chown(dir, owner.uid, gid);
      await fs.chown(file, owner.uid, gid);
    }
    return await use(file);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/**
 * Sets the superuser's password on a stopped cluster, in single-user mode (the statement on stdin, never
 * on a command line other users' `ps` shows). Throws with PostgreSQL's own lines when it fails.
 */
export async function setPasswordOffline(
  postgresBinary: string,
  databaseDir: string,
  password: string,
  owner: Owner,
): Promise<void> {
  const statement = `ALTER ROLE ${DATABASE_USER} PASSWORD '${scramVerifier(password)}';\n`;
  const child = spawn(
    postgresBinary,
    ['--single', '-D', databaseDir, '-c', 'exit_on_error=true', 'postgres'],
    {
      ...owner,
      stdio: ['pipe', 'ignore', 'pipe'],
    },
  );
  let output = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  child.stdin.end(statement);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0)
    throw new Error(`PostgreSQL could not set its password (single-user mode): ${output.trim()}`);
}
