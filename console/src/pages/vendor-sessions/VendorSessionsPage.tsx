// Vendor sessions (GET /app-callbacks): filtered by install and state in the URL, paged; the session
// chosen (`?session=<id>`, the run page's links) shows its details and the webhooks it received. Refreshed
// while a session shown is pending.
import type { FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { Paged } from '../../components/Paged.tsx';
import { withParams } from '../../components/page-params.ts';
import { Table } from '../../components/Table.tsx';
import { usePageParams } from '../../components/usePageParams.ts';
import { When } from '../../components/When.tsx';
import { RunStatus } from '../runs/RunStatus.tsx';
import { SESSION_STATUSES, type SessionStatus, useSessions } from './queries.ts';
import { SessionDetails } from './SessionDetails.tsx';

type Session = NonNullable<ReturnType<typeof useSessions>['data']>['items'][number];

const statusOf = (value: string | undefined): SessionStatus | undefined =>
  SESSION_STATUSES.find((status) => status === value);

export default function VendorSessionsPage() {
  const page = usePageParams({ defaultLimit: 25, maxLimit: 100 });
  const install = page.filter('install')?.trim() || undefined;
  const status = statusOf(page.filter('status'));
  const chosen = page.filter('session');
  const sessions = useSessions({ install, status, limit: page.limit, offset: page.offset });
  const items = sessions.data?.items ?? [];
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    page.setFilters({
      install: String(form.get('install') ?? '').trim() || null,
      status: String(form.get('status') ?? '') || null,
    });
  };
  return (
    <>
      <h1>Vendor sessions</h1>
      <form
        className="filter-form"
        aria-label="Filter vendor sessions"
        onSubmit={submit}
        key={`${install ?? ''}|${status ?? ''}`}
      >
        <label>
          Install
          <input name="install" defaultValue={install ?? ''} placeholder="install name" />
        </label>
        <label>
          State
          <select name="status" defaultValue={status ?? ''}>
            <option value="">Any</option>
            {SESSION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.replace('_', ' ')}
              </option>
            ))}
          </select>
        </label>
        <div className="filter-actions">
          <button type="submit">Apply filters</button>
          <button
            type="button"
            className="secondary"
            onClick={() => page.setFilters({ install: null, status: null })}
          >
            Clear
          </button>
        </div>
      </form>
      {chosen ? <SessionDetails id={chosen} /> : null}
      <section aria-labelledby="sessions-title" className="panel">
        <h2 id="sessions-title">Sessions</h2>
        {sessions.isPending ? <Loading what="vendor sessions" /> : null}
        {sessions.isError ? <Failure error={sessions.error} /> : null}
        {sessions.data ? (
          <>
            <SessionTable items={items} />
            <Paged
              page={page}
              shown={items.length}
              total={sessions.data.total}
              totalIsEstimate={sessions.data.totalIsEstimate}
              noun="vendor sessions"
            />
          </>
        ) : null}
      </section>
    </>
  );
}

function SessionTable({ items }: { items: Session[] }) {
  const [params] = useSearchParams();
  const chosen = (id: string) => ({
    search: `?${withParams(params, { session: id, 'events.offset': null })}`,
  });
  return (
    <Table<Session>
      caption="Vendor sessions, newest first"
      rows={items}
      rowKey={(session) => session.id}
      empty="No vendor session matches these filters."
      columns={[
        {
          header: 'Session',
          cell: (session) => (
            <Link to={chosen(session.id)}>
              {session.installName} · {session.action}
            </Link>
          ),
        },
        { header: 'Vendor’s id', cell: (session) => <code>{session.externalId}</code> },
        { header: 'State', cell: (session) => <RunStatus status={session.status} /> },
        {
          header: 'Run',
          cell: (session) =>
            session.workflowRunId ? (
              <Link to={`/runs/${encodeURIComponent(session.workflowRunId)}`}>
                Run<span className="visually-hidden"> {session.workflowRunId}</span>
              </Link>
            ) : (
              <span className="meta">a test call</span>
            ),
        },
        { header: 'Opened', cell: (session) => <When at={session.createdAt} /> },
        {
          header: 'Settled',
          cell: (session) => (session.completedAt ? <When at={session.completedAt} /> : ''),
        },
      ]}
    />
  );
}
