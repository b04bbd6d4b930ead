// One vendor session (GET /app-callbacks/:id): its install, action, vendor's id, state, output and error
// ("[redacted]" without runs:context), its run, and the webhooks it received (GET …/events, paged in the
// URL as events.limit / events.offset), read again while it is pending.
import { Link } from 'react-router';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { Paged } from '../../components/Paged.tsx';
import { Table } from '../../components/Table.tsx';
import { usePageParams } from '../../components/usePageParams.ts';
import { When } from '../../components/When.tsx';
import { JsonText } from '../runs/JsonText.tsx';
import { RunStatus } from '../runs/RunStatus.tsx';
import { useSession, useSessionEvents } from './queries.ts';

type Event = NonNullable<ReturnType<typeof useSessionEvents>['data']>['items'][number];

const OUTCOME: Record<Event['outcome'], string> = {
  accepted: 'recorded; the session stayed pending',
  completed: 'completed the session',
  failed: 'failed the session',
  stale: 'came after the session settled',
};

export function SessionDetails({ id }: { id: string }) {
  const session = useSession(id);
  return (
    <section aria-labelledby="session-title" className="panel">
      <h2 id="session-title">
        Session {session.data ? `${session.data.installName} · ${session.data.action}` : ''}
      </h2>
      {session.isPending ? <Loading what="the session" /> : null}
      {session.isError ? <Failure error={session.error} /> : null}
      {session.data ? (
        <>
          <dl className="facts">
            <dt>State</dt>
            <dd>
              <RunStatus status={session.data.status} />
            </dd>
            <dt>Vendor’s id</dt>
            <dd>
              <code>{session.data.externalId}</code>
            </dd>
            <dt>Run</dt>
            <dd>
              {session.data.workflowRunId ? (
                <Link to={`/runs/${encodeURIComponent(session.data.workflowRunId)}`}>
                  Run <code>{session.data.workflowRunId}</code>
                </Link>
              ) : (
                'none (a test call opened it)'
              )}
              {session.data.stepId ? <span className="meta"> step {session.data.stepId}</span> : null}
            </dd>
            <dt>Opened</dt>
            <dd>
              <When at={session.data.createdAt} />
            </dd>
            <dt>Settled</dt>
            <dd>{session.data.completedAt ? <When at={session.data.completedAt} /> : 'not yet'}</dd>
            <dt>Output</dt>
            <dd>
              <JsonText label="Output" value={session.data.output} />
            </dd>
            <dt>Error</dt>
            <dd className="run-error">
              <JsonText label="Error" value={session.data.error} />
            </dd>
          </dl>
          <SessionEvents id={id} moving={session.data.status === 'pending'} />
        </>
      ) : null}
    </section>
  );
}

function SessionEvents({ id, moving }: { id: string; moving: boolean }) {
  const page = usePageParams({ defaultLimit: 20, maxLimit: 100, prefix: 'events' });
  const events = useSessionEvents(id, { limit: page.limit, offset: page.offset }, moving);
  const items = events.data?.items ?? [];
  return (
    <>
      <h3 id="events-title">Webhooks it received</h3>
      {events.isPending ? <Loading what="the webhooks" /> : null}
      {events.isError ? <Failure error={events.error} /> : null}
      {events.data ? (
        <>
          <Table<Event>
            caption="The vendor’s webhooks for this session, newest first (the platform keeps no body)"
            rows={items}
            rowKey={(event) => event.id}
            empty="No webhook has come for this session yet."
            columns={[
              { header: 'Event id', cell: (event) => <code>{event.eventId}</code> },
              { header: 'Reported', cell: (event) => <RunStatus status={event.status} /> },
              { header: 'What it did', cell: (event) => OUTCOME[event.outcome] },
              { header: 'Received', cell: (event) => <When at={event.receivedAt} /> },
            ]}
          />
          <Paged
            page={page}
            shown={items.length}
            total={events.data.total}
            totalIsEstimate={events.data.totalIsEstimate}
            noun="webhooks"
          />
        </>
      ) : null}
    </>
  );
}
