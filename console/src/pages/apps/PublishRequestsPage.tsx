// Publish requests of the tenant's own versions (GET /apps/approvals): the open ones, oldest first, with
// approve and reject (a comment kept with either), or the decided ones, newest first. Open ones refresh by
// themselves. A refusal (four-eyes: the requester approving their own request) shows as a sentence.
import { useState } from 'react';
import { Link } from 'react-router';
import { useCan } from '../../auth/useCan.ts';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { Paged } from '../../components/Paged.tsx';
import { type Column, Table } from '../../components/Table.tsx';
import { usePageParams } from '../../components/usePageParams.ts';
import { When } from '../../components/When.tsx';
import { DecisionForm } from '../approvals/DecisionForm.tsx';
import { commentBody, decisionOutcome, type PublishRequest, versionPath } from './app-rules.ts';
import { useDecide, usePublishRequests } from './queries.ts';

export default function PublishRequestsPage() {
  const page = usePageParams({ defaultLimit: 20, maxLimit: 100 });
  const open = page.filter('status') !== 'decided';
  const canDecide = useCan('apps:publish');
  const requests = usePublishRequests({ open, limit: page.limit, offset: page.offset });
  const items = requests.data?.items ?? [];
  const [outcome, setOutcome] = useState<string | null>(null);

  const columns: Column<PublishRequest>[] = [
    {
      header: 'Version',
      cell: (r) => <Link to={versionPath(r.name, r.versionId)}>{`${r.name} ${r.version}`}</Link>,
    },
    {
      header: 'Requested',
      cell: (r) => (
        <>
          <When at={r.requestedAt} /> by {r.requestedByName ?? r.requestedBy}
          {r.fourEyes ? <span className="meta"> (four-eyes: another administrator decides)</span> : null}
        </>
      ),
    },
    open
      ? {
          header: 'Decide',
          cell: (r) =>
            canDecide ? (
              <DecideRequest request={r} onDecided={setOutcome} />
            ) : (
              <span className="meta">waiting</span>
            ),
        }
      : {
          header: 'Decision',
          cell: (r) => (
            <>
              {r.status}
              {r.decidedAt ? (
                <>
                  {' '}
                  <When at={r.decidedAt} /> by {r.decidedBy}
                </>
              ) : null}
              {r.comment ? <span className="quote">{r.comment}</span> : null}
            </>
          ),
        },
  ];

  return (
    <>
      <p className="crumbs">
        <Link to="/apps">Apps</Link>
      </p>
      <h1>Publish requests</h1>
      <section aria-labelledby="requests-title" className="panel">
        <h2 id="requests-title">{open ? 'Waiting for approval' : 'Decided'}</h2>
        <fieldset className="filters">
          <legend>Show</legend>
          <label>
            <input
              type="radio"
              name="status"
              checked={open}
              onChange={() => page.setFilters({ status: null })}
            />
            Waiting
          </label>
          <label>
            <input
              type="radio"
              name="status"
              checked={!open}
              onChange={() => page.setFilters({ status: 'decided' })}
            />
            Decided
          </label>
        </fieldset>
        <output className="notice-line">{outcome}</output>
        {requests.isPending ? <Loading what="publish requests" /> : null}
        {requests.isError ? <Failure error={requests.error} /> : null}
        {requests.data ? (
          <>
            <Table
              caption={open ? 'Oldest first' : 'Newest decision first'}
              columns={columns}
              rows={items}
              rowKey={(r) => r.id}
              empty={open ? 'No version waits for approval.' : 'No decided requests.'}
            />
            <Paged
              page={page}
              shown={items.length}
              total={requests.data.total}
              totalIsEstimate={requests.data.totalIsEstimate}
              noun="publish requests"
            />
          </>
        ) : null}
      </section>
    </>
  );
}

function DecideRequest({ request, onDecided }: { request: PublishRequest; onDecided(text: string): void }) {
  const decide = useDecide();
  return (
    <DecisionForm
      what={`${request.name} ${request.version}`}
      choices={[
        { decision: 'approve', label: 'Approve' },
        { decision: 'reject', label: 'Reject', secondary: true },
      ]}
      withComment
      pending={decide.isPending}
      error={decide.error}
      onDecide={(decision, comment) =>
        // mutateAsync: the row leaves the list once decided, and the outcome is said above it.
        decide
          .mutateAsync({ name: request.name, id: request.versionId, decision, body: commentBody(comment) })
          .then(
            (result) => onDecided(decisionOutcome(decision, result)),
            () => {},
          )
      }
    />
  );
}
