// Whether a database answers now: the worker's health and `platform token` ask before relying on it.
import { openClient } from './client.ts';

/** Opens a short connection (not from a pool) so a dead server shows at once. */
export async function databaseAnswers(url: string, timeoutMs = 2000): Promise<boolean> {
  const client = openClient({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
