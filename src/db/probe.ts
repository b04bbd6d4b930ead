// Whether a database answers now: the worker's health and `platform token` ask before relying on it.
import pg from 'pg';

/** Opens a short connection (not from a pool) so a dead server shows at once. */
export async function databaseAnswers(url: string, timeoutMs = 2000): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => {});
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
