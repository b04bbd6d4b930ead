// The pure rules of how a run ends (docs/runs.md "How a run ends", "The sweep", "Bounds"): the waits while
// the database is down, which failures end a step `internal` and why, which open runs the sweep ends, and
// the bounds of a step's output and the run context.
import { Error as EngineErrors } from '@dbos-inc/dbos-sdk';
import { describe, expect, it } from 'vitest';
import { type OutagePolicy, outageDelay, whileDatabaseDown } from '../../src/db/outage.ts';
import { CONTEXT_LIMIT_BYTES, placeOutput, STEP_OUTPUT_LIMIT_BYTES } from '../../src/runs/bounds.ts';
import { UnrecordedCallError, whileUnsent } from '../../src/runs/database-outage.ts';
import { failureOf, isEngineStop } from '../../src/runs/run-failure.ts';
import { NO_WORKFLOW_GRACE_MS, strandedVerdict } from '../../src/runs/sweep.ts';

/** What pg throws when nothing listens: an AggregateError of refused connections (IPv6, then IPv4). */
const refused = () =>
  Object.assign(new AggregateError([Object.assign(new Error('connect'), { code: 'ECONNREFUSED' })]), {
    code: 'ECONNREFUSED',
  });
/** Drizzle's wrapper of a failed query: its message holds the query's parameters. */
const failedQuery = (cause: unknown) =>
  Object.assign(new Error('Failed query: update … params: Ada Lovelace'), { cause });
const sqlError = (code: string) => Object.assign(new Error('server said no'), { code });

/** A policy on a clock the test moves: each wait advances it, nothing sleeps. */
function fakeClock(budgetMs = 10_000): OutagePolicy & { waits: number[] } {
  let now = 0;
  const waits: number[] = [];
  return {
    budgetMs,
    firstDelayMs: 100,
    maxDelayMs: 2_000,
    now: () => now,
    sleep: async (ms) => {
      waits.push(ms);
      now += ms;
    },
    waits,
  };
}

/** Work that fails with each of `failures` in turn, then answers 'done'. */
function failing(failures: unknown[]) {
  let calls = 0;
  return {
    work: async () => {
      const failure = failures[calls++];
      if (failure !== undefined) throw failure;
      return 'done';
    },
    calls: () => calls,
  };
}

describe('the waits while the database is down', () => {
  it.each([
    { tries: 1, delay: 100 },
    { tries: 2, delay: 200 },
    { tries: 5, delay: 1_600 },
    { tries: 6, delay: 2_000 },
    { tries: 60, delay: 2_000 },
  ])('after try $tries: $delay ms', ({ tries, delay }) => {
    expect(outageDelay(tries, { firstDelayMs: 100, maxDelayMs: 2_000 })).toBe(delay);
  });

  it('tries again on connection failures, wrapped or not, and answers once the database does', async () => {
    const clock = fakeClock();
    const { work, calls } = failing([
      refused(),
      failedQuery(refused()),
      sqlError('57P01'),
      sqlError('57P03'),
    ]);
    await expect(whileDatabaseDown(work, clock)).resolves.toBe('done');
    expect(calls()).toBe(5);
    expect(clock.waits).toEqual([100, 200, 400, 800]);
  });

  it.each([
    { name: 'a refused constraint', error: sqlError('23505') },
    { name: 'a trigger’s exception', error: failedQuery(sqlError('P0001')) },
    { name: 'a bug', error: new TypeError('x is undefined') },
  ])('lets $name through at once', async ({ error }) => {
    const clock = fakeClock();
    const { work, calls } = failing([error]);
    await expect(whileDatabaseDown(work, clock)).rejects.toBe(error);
    expect(calls()).toBe(1);
    expect(clock.waits).toEqual([]);
  });

  it('gives up with the last failure once the budget would be spent', async () => {
    const clock = fakeClock(1_000);
    const failures = Array.from({ length: 20 }, refused);
    const { work, calls } = failing(failures);
    await expect(whileDatabaseDown(work, clock)).rejects.toBe(failures[3]);
    // 100 + 200 + 400 = 700 ms waited; the next wait (800 ms) would pass the 1000 ms budget.
    expect(clock.waits).toEqual([100, 200, 400]);
    expect(calls()).toBe(4);
  });
});

describe('work that sends app calls', () => {
  it('is tried again while nothing was sent', async () => {
    const clock = fakeClock();
    const { work, calls } = failing([refused(), refused()]);
    await expect(whileUnsent(work, { sent: () => 0 }, clock)).resolves.toBe('done');
    expect(calls()).toBe(3);
  });

  it('is never tried again once a call was sent: any failure is UnrecordedCallError', async () => {
    for (const failure of [refused(), sqlError('22P05')]) {
      let sent = 0;
      const work = async () => {
        sent++;
        throw failure;
      };
      const clock = fakeClock();
      await expect(whileUnsent(work, { sent: () => sent }, clock)).rejects.toBeInstanceOf(
        UnrecordedCallError,
      );
      expect(sent).toBe(1);
      expect(clock.waits).toEqual([]);
    }
  });
});

describe('the error a step or run ends with', () => {
  const unrecorded = { name: 'UnrecordedCallError', message: 'as DBOS replays it' };
  it.each([
    {
      name: 'a call sent, its outcome unrecorded',
      error: new UnrecordedCallError(),
      reason: 'outcome_unrecorded',
    },
    { name: 'the same, replayed from DBOS as data', error: unrecorded, reason: 'outcome_unrecorded' },
    {
      name: 'the database away past the budget',
      error: failedQuery(refused()),
      reason: 'database_unavailable',
    },
    { name: 'anything else', error: failedQuery(sqlError('P0001')), reason: 'internal' },
    { name: 'a thrown string', error: 'boom', reason: 'internal' },
  ])('$name: internal, $reason', ({ error, reason }) => {
    const failure = failureOf(error);
    expect(failure).toMatchObject({ code: 'internal', details: { reason } });
    // A fixed message: nothing of the thrown text (a query's parameters are run data).
    expect(failure.message).not.toMatch(/Ada|params|server said/);
  });

  it.each([
    { name: 'a cancelled workflow', error: new EngineErrors.DBOSWorkflowCancelledError('w'), stops: true },
    { name: 'lost ownership', error: new EngineErrors.DBOSWorkflowConflictError('w'), stops: true },
    {
      name: 'a replay that does not match',
      error: new EngineErrors.DBOSUnexpectedStepError('w', 1, 'a', 'b'),
      stops: true,
    },
    {
      name: 'an awaited child cancelled',
      error: new EngineErrors.DBOSAwaitedWorkflowCancelledError('w'),
      stops: false,
    },
    { name: 'an ordinary error', error: new Error('x'), stops: false },
  ])('$name stops the execution rather than ending the run: $stops', ({ error, stops }) => {
    expect(isEngineStop(error)).toBe(stops);
  });
});

describe('the sweep’s verdict on an open run', () => {
  const created = new Date('2026-01-01T00:00:00Z');
  const at = (ms: number) => created.getTime() + ms;
  it.each([
    { workflowStatus: 'PENDING', now: at(3_600_000), end: false },
    { workflowStatus: 'ENQUEUED', now: at(3_600_000), end: false },
    { workflowStatus: 'DELAYED', now: at(3_600_000), end: false },
    { workflowStatus: 'ERROR', now: at(0), end: true },
    { workflowStatus: 'CANCELLED', now: at(0), end: true },
    { workflowStatus: 'SUCCESS', now: at(0), end: true },
    { workflowStatus: 'MAX_RECOVERY_ATTEMPTS_EXCEEDED', now: at(0), end: true },
    { workflowStatus: 'SOMETHING_NEW', now: at(3_600_000), end: false },
    { workflowStatus: null, now: at(NO_WORKFLOW_GRACE_MS - 1), end: false },
    { workflowStatus: null, now: at(NO_WORKFLOW_GRACE_MS), end: true },
  ])('workflow $workflowStatus at +$now: ends $end', ({ workflowStatus, now, end }) => {
    const verdict = strandedVerdict({ status: 'running', createdAt: created, workflowStatus }, now);
    expect(verdict.end).toBe(end);
    if (verdict.end) {
      expect(verdict.error).toMatchObject({
        code: 'internal',
        details: { reason: 'stranded', workflowStatus },
      });
    }
  });

  it.each([
    'SUCCESS',
    'ERROR',
    null,
  ])('a run waiting on a vendor session (its workflow %s) is not stranded: the resumer moves it on', (workflowStatus) => {
    const waiting = { status: 'waiting_callback', createdAt: created, workflowStatus };
    expect(strandedVerdict(waiting, at(NO_WORKFLOW_GRACE_MS * 100)).end).toBe(false);
  });

  it('reads the grace period it is given', () => {
    expect(
      strandedVerdict({ status: 'running', createdAt: created, workflowStatus: null }, at(10), 10).end,
    ).toBe(true);
    expect(
      strandedVerdict({ status: 'running', createdAt: created, workflowStatus: null }, at(9), 10).end,
    ).toBe(false);
  });
});

describe('the bounds of the run context', () => {
  /** A string whose JSON (quotes included) is exactly `bytes` long. */
  const ofJsonBytes = (bytes: number) => 'x'.repeat(bytes - 2);
  it.each([
    {
      name: 'an output at the step bound',
      context: {},
      output: ofJsonBytes(STEP_OUTPUT_LIMIT_BYTES),
      ok: true,
    },
    {
      name: 'an output one byte past it',
      context: {},
      output: ofJsonBytes(STEP_OUTPUT_LIMIT_BYTES + 1),
      ok: false,
      details: {
        bound: 'step_output',
        bytes: STEP_OUTPUT_LIMIT_BYTES + 1,
        limitBytes: STEP_OUTPUT_LIMIT_BYTES,
      },
    },
    {
      name: 'multi-byte characters, counted in UTF-8',
      context: {},
      output: 'é'.repeat(STEP_OUTPUT_LIMIT_BYTES / 2),
      ok: false,
      details: { bound: 'step_output', bytes: STEP_OUTPUT_LIMIT_BYTES + 2 },
    },
    {
      name: 'a context filled to its bound by the output',
      // {"a":…,"out":…} is 13 bytes around the two strings' JSON.
      context: { a: ofJsonBytes(CONTEXT_LIMIT_BYTES - STEP_OUTPUT_LIMIT_BYTES - 13) },
      output: ofJsonBytes(STEP_OUTPUT_LIMIT_BYTES),
      ok: true,
    },
    {
      name: 'a context one byte past its bound',
      context: { a: ofJsonBytes(CONTEXT_LIMIT_BYTES - STEP_OUTPUT_LIMIT_BYTES - 12) },
      output: ofJsonBytes(STEP_OUTPUT_LIMIT_BYTES),
      ok: false,
      details: { bound: 'context', bytes: CONTEXT_LIMIT_BYTES + 1, limitBytes: CONTEXT_LIMIT_BYTES },
    },
    {
      name: 'an output replacing a larger one under the same key',
      context: { out: ofJsonBytes(CONTEXT_LIMIT_BYTES - 10) },
      output: 1,
      ok: true,
    },
  ])('$name', ({ context, output, ok, details }) => {
    const placed = placeOutput(context, 'out', output);
    expect(placed.ok).toBe(ok);
    if (placed.ok) expect(placed.context).toEqual({ ...context, out: output });
    else expect(placed.error).toMatchObject({ code: 'output_too_large', details });
  });
});
