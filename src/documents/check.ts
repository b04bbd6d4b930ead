// Running the document check (docs/documents.md "The check"): a document is checked in the api process
// right after its upload is answered, off the request; a sweep picks up those still pending a minute
// after upload (a process that stopped before its check ran). The verdict itself is check-rules.ts.
import { and, asc, eq, lt, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/pool.ts';
import type { ObjectStore } from '../storage/index.ts';
import { countDocumentProcessed } from '../telemetry/index.ts';
import { type Verdict, verdictOf } from './check-rules.ts';
import { bytesOf, DocumentBytesLost } from './documents-store.ts';
import { subjectDocuments } from './tables.ts';

export interface CheckDeps {
  database: Database;
  objects: ObjectStore;
  logger: FastifyBaseLogger;
}

/** How long a document may stay pending before the sweep checks it: its own check has had its chance. */
export const SWEEP_AFTER_MS = 60_000;
/** How often the sweep looks, and how many documents it checks at a time. */
const SWEEP_INTERVAL_MS = 60_000;
const SWEEP_BATCH = 100;

/**
 * Checks one pending document and records the verdict; answers it, or null when the document is not
 * pending (already checked: by another process, or an earlier pass). Bytes that are gone or differ from
 * the upload are rejected as `missing`; a store that fails throws and leaves the document pending for
 * the sweep. Two processes checking one document at once reach the same verdict, and only the first
 * write moves it (the update is conditional on pending).
 */
export async function checkDocument(deps: CheckDeps, id: string): Promise<Verdict | null> {
  const db = deps.database.db;
  const [row] = await db
    .select()
    .from(subjectDocuments)
    .where(and(eq(subjectDocuments.id, id), eq(subjectDocuments.status, 'pending')))
    .limit(1);
  if (!row) return null;
  let verdict: Verdict;
  try {
    verdict = verdictOf(row.contentType, await bytesOf(deps.objects, row));
  } catch (error) {
    if (!(error instanceof DocumentBytesLost)) throw error;
    deps.logger.warn({ documentId: id, tenantId: row.tenantId }, error.message);
    verdict = { status: 'rejected', reason: 'missing' };
  }
  const [moved] = await db
    .update(subjectDocuments)
    .set({
      status: verdict.status,
      reason: verdict.status === 'rejected' ? verdict.reason : null,
      checkedAt: sql`now()`,
    })
    .where(and(eq(subjectDocuments.id, id), eq(subjectDocuments.status, 'pending')))
    .returning({ id: subjectDocuments.id });
  if (!moved) return null;
  countDocumentProcessed();
  deps.logger.info(
    {
      documentId: id,
      tenantId: row.tenantId,
      status: verdict.status,
      ...(verdict.status === 'rejected' ? { reason: verdict.reason } : {}),
    },
    'document checked',
  );
  return verdict;
}

/**
 * The sweep's pass: checks the documents pending for longer than `olderThanMs` (by the database's
 * clock), oldest first, at most `limit`; answers how many it moved. A document whose check throws stays
 * pending for the next pass.
 */
export async function checkPendingDocuments(
  deps: CheckDeps,
  options: { olderThanMs?: number; limit?: number } = {},
): Promise<number> {
  const olderThanMs = options.olderThanMs ?? SWEEP_AFTER_MS;
  const rows = await deps.database.db
    .select({ id: subjectDocuments.id })
    .from(subjectDocuments)
    .where(
      and(
        eq(subjectDocuments.status, 'pending'),
        lt(subjectDocuments.createdAt, sql`now() - make_interval(secs => ${olderThanMs / 1000})`),
      ),
    )
    .orderBy(asc(subjectDocuments.createdAt))
    .limit(options.limit ?? SWEEP_BATCH);
  let moved = 0;
  for (const { id } of rows) {
    try {
      if (await checkDocument(deps, id)) moved += 1;
    } catch (error) {
      deps.logger.error({ err: error, documentId: id }, 'document check failed; the document stays pending');
    }
  }
  return moved;
}

/**
 * The api's checks: one scheduled after each upload, and the sweep every minute. `close` stops both and
 * waits for the checks under way, so none outlives the database pool.
 */
export class DocumentChecks {
  readonly #inFlight = new Set<Promise<unknown>>();
  #timer: NodeJS.Timeout | null = null;
  #sweeping = false;
  #closed = false;

  constructor(private readonly deps: CheckDeps) {}

  /** Checks the document once the current request is answered (the upload answers it pending). */
  schedule(id: string): void {
    this.#track(() => checkDocument(this.deps, id), id);
  }

  /** Sweeps now and every minute. */
  startSweep(intervalMs = SWEEP_INTERVAL_MS): void {
    if (this.#closed || this.#timer) return;
    // A pass still running when the next is due (a slow store) is not doubled.
    const sweep = () => {
      if (this.#sweeping) return;
      this.#sweeping = true;
      this.#track(
        () =>
          checkPendingDocuments(this.deps).finally(() => {
            this.#sweeping = false;
          }),
        null,
      );
    };
    sweep();
    this.#timer = setInterval(sweep, intervalMs);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await Promise.allSettled([...this.#inFlight]);
  }

  #track(work: () => Promise<unknown>, documentId: string | null): void {
    if (this.#closed) return;
    const running = new Promise<void>((resolve) => setImmediate(resolve))
      .then(work)
      .catch((error) => {
        this.deps.logger.error({ err: error, documentId }, 'document check failed; the sweep tries again');
      })
      .finally(() => this.#inFlight.delete(running));
    this.#inFlight.add(running);
  }
}
