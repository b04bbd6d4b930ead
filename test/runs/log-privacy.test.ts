// A step whose database write fails: the worker's log lines (DBOS's own included) carry neither the run's
// context nor the vendor's output, which the failed query held as parameters (docs/operations.md "Logs").
// A trigger makes the database refuse the run's end, as it refused text it could not store.
import { Writable } from 'node:stream';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging.ts';
import { ok } from '../installs/support.ts';
import {
  installConnector,
  publishDefinition,
  type RunAnswer,
  type RunsStack,
  requestStep,
  startRunsStack,
} from './stack.ts';

/** From the applicant (the run's context) and from the vendor (the step's output). */
const APPLICANT_MARKER = 'Applicant-Marker-51c9';
const VENDOR_MARKER = 'Vendor-Marker-0d42';

const lines: Record<string, unknown>[] = [];
let stack: RunsStack;

beforeAll(async () => {
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const logger = createLogger({ service: 'worker-test', level: 'debug', env: 'test', destination });
  stack = await startRunsStack([{ method: 'GET', path: '/screen', json: { note: VENDOR_MARKER } }], {
    logger,
  });
  const tenantId = await stack.platform.tenantId();
  await installConnector(stack, 'vendor');
  await publishDefinition(stack, tenantId, 'workflow', 'screen', {
    steps: [
      requestStep('vendor', '/screen', {
        id: 'fetch',
        inputMapping: { 'query.name': 'applicant.name' },
        outputKey: 'vendor',
      }),
    ],
  });
  // The run's end, which writes the context with the vendor's output, is refused by the database.
  await stack.platform.database.pool.query(`
    CREATE FUNCTION refuse_end() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'refused for the test' USING DETAIL = NEW.context::text; END $$;
    CREATE TRIGGER refuse_end BEFORE UPDATE ON workflow_runs
      FOR EACH ROW WHEN (NEW.context ? 'vendor') EXECUTE FUNCTION refuse_end();
    CREATE FUNCTION refuse_value(v jsonb) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'refused for the test' USING DETAIL = v::text; END $$;`);
}, 120_000);
afterAll(async () => stack?.close());

/** Waits (bounded) until `found` holds, yielding to the event loop between looks. */
async function until<T>(what: string, found: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const giveUpAt = Date.now() + 60_000;
  for (;;) {
    const value = await found();
    if (value !== undefined) return value;
    expect(Date.now(), `still waiting for ${what}`).toBeLessThan(giveUpAt);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits for the run's engine workflow to end (ERROR, or SUCCESS once it has ended the run itself). */
const workflowEnded = (runId: string) =>
  until('the run workflow to end', async () => {
    const { rows } = await stack.platform.database.db.execute<{ status: string }>(
      sql`select status from dbos.workflow_status where workflow_uuid = ${runId}`,
    );
    const status = rows[0]?.status;
    return status === 'ERROR' || status === 'SUCCESS' ? status : undefined;
  });

describe('a step whose database write fails', () => {
  it('is logged without the context, the vendor’s output or the row PostgreSQL quoted', async () => {
    const run = await ok<RunAnswer>(
      await stack.platform.fetch('/workflow-runs', {
        method: 'POST',
        json: {
          workflow: 'screen',
          subjectId: 'subject-1',
          context: { applicant: { name: APPLICANT_MARKER } },
        },
      }),
      201,
    );
    await workflowEnded(run.id);
    // The failure was logged (so this test reads the lines it is about), with its SQLSTATE.
    await until('the failure’s error line', () =>
      lines.find((line) => line.level === 'error' && JSON.stringify(line).includes('P0001')),
    );
    const all = JSON.stringify(lines);
    expect(all).not.toContain(APPLICANT_MARKER);
    expect(all).not.toContain(VENDOR_MARKER);
  }, 90_000);
});

describe('the engine’s own lines (DBOS’s logger, as it logs a failed workflow and a retried step)', () => {
  it('write the error without its parameters, and cut a quoted stack where they begin', async () => {
    // A real query error whose parameter is a context with both markers.
    const context = JSON.stringify({
      applicant: { name: APPLICANT_MARKER },
      vendor: { note: VENDOR_MARKER },
    });
    const failed = await stack.platform.database.db.execute(sql`select refuse_value(${context}::jsonb)`).then(
      () => null,
      (error: unknown) => error as Error,
    );
    expect(String(failed?.message)).toContain(APPLICANT_MARKER);
    const from = lines.length;
    DBOS.logger.error(failed);
    DBOS.logger.warn(`Error in step being automatically retried. Attempt 1 of 3. ${failed?.stack}`);
    const written = lines.slice(from);
    expect(written).toEqual([
      expect.objectContaining({
        level: 'error',
        component: 'dbos',
        err: expect.objectContaining({
          type: 'DrizzleQueryError',
          message: 'Failed query: select refuse_value($1::jsonb)',
          cause: expect.objectContaining({ code: 'P0001', message: 'refused for the test' }),
        }),
      }),
      expect.objectContaining({
        level: 'warn',
        component: 'dbos',
        entry:
          'Error in step being automatically retried. Attempt 1 of 3. Error: Failed query: select refuse_value($1::jsonb)',
      }),
    ]);
    expect(JSON.stringify(written)).not.toContain(APPLICANT_MARKER);
    expect(JSON.stringify(written)).not.toContain(VENDOR_MARKER);
  });
});
