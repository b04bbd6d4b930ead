// Definitions' approval requests (GET /definition-approvals), filtered by status, kind and key in the URL
// and paged as `definitions.limit` / `definitions.offset`; an open one is approved, rejected or withdrawn
// here. Open ones refresh by themselves.
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { useSession } from '../../auth/session.ts';
import { useCan } from '../../auth/useCan.ts';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { Paged } from '../../components/Paged.tsx';
import { type Column, Table } from '../../components/Table.tsx';
import { type PageParams, usePageParams } from '../../components/usePageParams.ts';
import { When } from '../../components/When.tsx';
import { commentBody } from '../apps/app-rules.ts';
import {
  APPROVAL_STATUSES,
  DEFINITION_KINDS,
  definitionApprovalPath,
  definitionFilters,
  definitionNoun,
  definitionPath,
  mayWithdraw,
} from './approvals-rules.ts';
import { type Choice, DecisionForm } from './DecisionForm.tsx';
import {
  type DefinitionApproval,
  type DefinitionDecision,
  useDecideDefinition,
  useDefinitionApprovals,
} from './queries.ts';

export function DefinitionApprovalsQueue() {
  const page = usePageParams({ defaultLimit: 20, maxLimit: 100, prefix: 'definitions' });
  const filters = definitionFilters(page.filter);
  const approvals = useDefinitionApprovals({ ...filters, limit: page.limit, offset: page.offset });
  const items = approvals.data?.items ?? [];
  const open = (filters.status ?? 'open') === 'open';

  const columns: Column<DefinitionApproval>[] = [
    {
      header: 'Definition',
      cell: (a) => (
        <Link to={definitionPath(a.kind, a.key, a.version)}>
          {`${definitionNoun(a.kind)} ${a.key} version ${a.version}`}
        </Link>
      ),
    },
    {
      header: 'Requested',
      cell: (a) => (
        <>
          <When at={a.requestedAt} /> by {a.requestedByName ?? a.requestedBy}
          {a.origin === 'rename' ? <span className="meta"> (a rename's rewrite)</span> : null}
          {a.fourEyes ? <span className="meta"> (four-eyes)</span> : null}
        </>
      ),
    },
    {
      header: open ? 'Decide' : 'Decision',
      cell: (a) => (a.status === 'open' ? <DecideDefinition approval={a} /> : <DecisionText approval={a} />),
    },
    { header: 'Request', cell: (a) => <Link to={definitionApprovalPath(a.id)}>Open request</Link> },
  ];

  return (
    <section aria-labelledby="definitions-title" className="panel">
      <h2 id="definitions-title">Definitions' approvals</h2>
      <Filters page={page} status={filters.status ?? 'open'} kind={filters.kind} keyFilter={filters.key} />
      {approvals.isPending ? <Loading what="definition approvals" /> : null}
      {approvals.isError ? <Failure error={approvals.error} /> : null}
      {approvals.data ? (
        <>
          <Table
            caption={open ? 'Waiting, oldest first' : 'Decided, newest first'}
            columns={columns}
            rows={items}
            rowKey={(a) => a.id}
            empty={open ? 'No definition waits for approval.' : 'No requests match.'}
          />
          <Paged
            page={page}
            shown={items.length}
            total={approvals.data.total}
            totalIsEstimate={approvals.data.totalIsEstimate}
            noun="definition approvals"
          />
        </>
      ) : null}
    </section>
  );
}

function Filters(props: { page: PageParams; status: string; kind?: string; keyFilter?: string }) {
  const { page } = props;
  const [key, setKey] = useState(props.keyFilter ?? '');
  const submitKey = (event: FormEvent) => {
    event.preventDefault();
    page.setFilters({ key: key.trim() || null });
  };
  return (
    <form className="filters" onSubmit={submitKey}>
      <label>
        Status{' '}
        <select
          value={props.status}
          onChange={(e) => page.setFilters({ status: e.target.value === 'open' ? null : e.target.value })}
        >
          {APPROVAL_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label>
        Kind{' '}
        <select value={props.kind ?? ''} onChange={(e) => page.setFilters({ kind: e.target.value || null })}>
          <option value="">any</option>
          {DEFINITION_KINDS.map((k) => (
            <option key={k} value={k}>
              {definitionNoun(k)}
            </option>
          ))}
        </select>
      </label>
      <label>
        Key <input type="search" value={key} onChange={(e) => setKey(e.target.value)} />
      </label>
      <button type="submit" className="secondary">
        Filter
      </button>
    </form>
  );
}

function DecisionText({ approval: a }: { approval: DefinitionApproval }) {
  return (
    <>
      {a.status}
      {a.decidedAt ? (
        <>
          {' '}
          <When at={a.decidedAt} /> by {a.decidedBy}
        </>
      ) : null}
      {a.comment ? <span className="quote">{a.comment}</span> : null}
    </>
  );
}

/** Approve and reject for a holder of definitions:publish; withdraw for the requester or an administrator. */
export function DecideDefinition({ approval }: { approval: DefinitionApproval }) {
  const session = useSession();
  const canPublish = useCan('definitions:publish');
  const decide = useDecideDefinition();
  const choices: Choice<DefinitionDecision>[] = canPublish
    ? [
        { decision: 'approve', label: 'Approve' },
        { decision: 'reject', label: 'Reject', secondary: true },
      ]
    : [];
  if (mayWithdraw(session?.principal ?? null, approval.requestedBy, 'definitions:publish'))
    choices.push({ decision: 'withdraw', label: 'Withdraw', secondary: true });
  if (choices.length === 0) return <span className="meta">waiting</span>;
  return (
    <DecisionForm
      what={`${definitionNoun(approval.kind)} ${approval.key} version ${approval.version}`}
      choices={choices}
      withComment
      pending={decide.isPending}
      error={decide.error}
      onDecide={(decision, comment) =>
        decide.mutate({ id: approval.id, decision, body: commentBody(comment) })
      }
    />
  );
}
