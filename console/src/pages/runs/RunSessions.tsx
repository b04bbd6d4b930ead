// The vendor sessions the run's steps opened (GET /app-callbacks?workflowRunId): the one it waits on, or
// those it waited on, each linking to its page under vendor sessions.
import { Link } from 'react-router';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { Table } from '../../components/Table.tsx';
import { When } from '../../components/When.tsx';
import { useRunSessions } from './queries.ts';
import { RunStatus } from './RunStatus.tsx';

type Session = NonNullable<ReturnType<typeof useRunSessions>['data']>['items'][number];

export function RunSessions({ runId, moving }: { runId: string; moving: boolean }) {
  const sessions = useRunSessions(runId, moving);
  return (
    <section aria-labelledby="run-sessions-title" className="panel">
      <h2 id="run-sessions-title">Vendor sessions</h2>
      {sessions.isPending ? <Loading what="the vendor sessions" /> : null}
      {sessions.isError ? <Failure error={sessions.error} /> : null}
      {sessions.data ? (
        <Table<Session>
          caption="Sessions the run waits or waited on"
          rows={sessions.data.items}
          rowKey={(session) => session.id}
          empty="The run opened no vendor session."
          columns={[
            {
              header: 'Session',
              cell: (session) => (
                <Link to={`/vendor-sessions?session=${encodeURIComponent(session.id)}`}>
                  {session.installName} · {session.action}
                </Link>
              ),
            },
            { header: 'Step', cell: (session) => session.stepId ?? '' },
            { header: 'Vendor’s id', cell: (session) => <code>{session.externalId}</code> },
            {
              header: 'State',
              cell: (session) => (
                <>
                  <RunStatus status={session.status} />
                  {session.status === 'pending' ? <span className="meta"> · the run waits on it</span> : null}
                </>
              ),
            },
            { header: 'Opened', cell: (session) => <When at={session.createdAt} /> },
            {
              header: 'Settled',
              cell: (session) => (session.completedAt ? <When at={session.completedAt} /> : ''),
            },
          ]}
        />
      ) : null}
    </section>
  );
}
