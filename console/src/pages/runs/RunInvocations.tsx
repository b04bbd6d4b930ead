// Each step's invocations and attempts (GET /app-invocations?workflowRunId): the install and action, the
// attempt's outcome and duration, and its input, output and error text — "[redacted]" from the API for a
// principal without runs:context, shown as such.
import { useCan } from '../../auth/useCan.ts';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { Table } from '../../components/Table.tsx';
import { When } from '../../components/When.tsx';
import { JsonText } from './JsonText.tsx';
import { useRunInvocations } from './queries.ts';
import { RunStatus } from './RunStatus.tsx';
import { formatDuration, isRedacted } from './run-rules.ts';

type Invocation = NonNullable<ReturnType<typeof useRunInvocations>['data']>['items'][number];

export function RunInvocations({ runId, moving }: { runId: string; moving: boolean }) {
  const invocations = useRunInvocations(runId, moving);
  const seesContext = useCan('runs:context');
  // The API sorts newest first; the run reads in its own order: step by step, attempt by attempt.
  const items = [...(invocations.data?.items ?? [])].sort(
    (a, b) => a.createdAt.localeCompare(b.createdAt) || a.attempt - b.attempt,
  );
  return (
    <section aria-labelledby="invocations-title" className="panel">
      <h2 id="invocations-title">Invocations and attempts</h2>
      {seesContext ? null : (
        <p className="note">
          Inputs, outputs and error texts read <span className="redacted">[redacted]</span>: your role does
          not hold <code>runs:context</code>.
        </p>
      )}
      {invocations.isPending ? <Loading what="the invocations" /> : null}
      {invocations.isError ? <Failure error={invocations.error} /> : null}
      {invocations.data ? (
        <Table<Invocation>
          caption="Every attempt of the run’s steps, in order"
          rows={items}
          rowKey={(item) => item.id}
          empty="No step of this run called an install."
          columns={[
            { header: 'Step', cell: (item) => item.stepId ?? '' },
            { header: 'Attempt', cell: (item) => item.attempt, className: 'numeric' },
            {
              header: 'Install and action',
              cell: (item) => (
                <>
                  {item.calledAs} · {item.action}
                  {item.fallbackOf ? (
                    <span className="meta"> (fallback of {item.fallbackOf.name})</span>
                  ) : null}
                  <span className="meta">
                    {' '}
                    {item.appName} {item.version}
                  </span>
                </>
              ),
            },
            { header: 'Outcome', cell: (item) => <RunStatus status={item.status} /> },
            { header: 'Duration', cell: (item) => formatDuration(item.durationMs), className: 'numeric' },
            { header: 'At', cell: (item) => <When at={item.createdAt} /> },
            { header: 'Error', cell: (item) => (item.error ? <AttemptError error={item.error} /> : '') },
            { header: 'Input', cell: (item) => <JsonText label="Input" value={item.input} /> },
            { header: 'Output', cell: (item) => <JsonText label="Output" value={item.output} /> },
          ]}
        />
      ) : null}
    </section>
  );
}

function AttemptError({ error }: { error: NonNullable<Invocation['error']> }) {
  return (
    <>
      <code>
        {error.code}
        {error.reason ? ` (${error.reason})` : ''}
      </code>{' '}
      {isRedacted(error.message) ? <span className="redacted">[redacted]</span> : error.message}
    </>
  );
}
