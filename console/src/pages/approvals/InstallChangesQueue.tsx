// Install changes waiting for approval (GET /app-install-changes?status=open), paged as `changes.limit` /
// `changes.offset`, each linking to its change page and decided here: approve or reject (apps:publish, a
// comment kept), withdraw (its requester or an administrator). They refresh by themselves.
import { Link } from 'react-router';
import { useSession } from '../../auth/session.ts';
import { useCan } from '../../auth/useCan.ts';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { Paged } from '../../components/Paged.tsx';
import { type Column, Table } from '../../components/Table.tsx';
import { usePageParams } from '../../components/usePageParams.ts';
import { When } from '../../components/When.tsx';
import { commentBody, listText } from '../apps/app-rules.ts';
import { changePath, mayWithdraw } from './approvals-rules.ts';
import { type Choice, DecisionForm } from './DecisionForm.tsx';
import {
  type ChangeDecision,
  type InstallChange,
  useDecideChange,
  useOpenInstallChanges,
} from './queries.ts';

const columns: Column<InstallChange>[] = [
  {
    header: 'Install',
    cell: (c) => (
      <Link to={changePath(c.installName, c.id)}>
        {c.newInstall ? `New install ${c.installName}` : `Change to ${c.installName}`}
      </Link>
    ),
  },
  {
    header: 'What it adds',
    cell: (c) => (
      <>
        hosts {listText(c.hostsAdded)}
        {c.needsAdded.length ? `; needs ${listText(c.needsAdded)}` : null}
        {c.handlesAdded.length ? `; handles ${listText(c.handlesAdded)}` : null}
        {c.origin === 'auto_upgrade' ? <span className="meta"> (an automatic upgrade)</span> : null}
      </>
    ),
  },
  {
    header: 'Requested',
    cell: (c) => (
      <>
        <When at={c.requestedAt} /> by {c.requestedBy}
        {c.approvalSettings.fourEyes ? <span className="meta"> (four-eyes)</span> : null}
        {c.comment ? <span className="quote">{c.comment}</span> : null}
      </>
    ),
  },
  { header: 'Decide', cell: (c) => <DecideChange change={c} /> },
];

export function InstallChangesQueue() {
  const page = usePageParams({ defaultLimit: 20, maxLimit: 100, prefix: 'changes' });
  const changes = useOpenInstallChanges({ limit: page.limit, offset: page.offset });
  const items = changes.data?.items ?? [];
  return (
    <section aria-labelledby="changes-title" className="panel">
      <h2 id="changes-title">Install changes</h2>
      {changes.isPending ? <Loading what="install changes" /> : null}
      {changes.isError ? <Failure error={changes.error} /> : null}
      {changes.data ? (
        <>
          <Table
            caption="Waiting, oldest first"
            columns={columns}
            rows={items}
            rowKey={(c) => c.id}
            empty="No install change waits for approval."
          />
          <Paged
            page={page}
            shown={items.length}
            total={changes.data.total}
            totalIsEstimate={changes.data.totalIsEstimate}
            noun="install changes"
          />
        </>
      ) : null}
    </section>
  );
}

function DecideChange({ change }: { change: InstallChange }) {
  const session = useSession();
  const canDecide = useCan('apps:publish');
  const decide = useDecideChange();
  const choices: Choice<ChangeDecision>[] = canDecide
    ? [
        { decision: 'approve', label: 'Approve' },
        { decision: 'reject', label: 'Reject', secondary: true },
      ]
    : [];
  if (mayWithdraw(session?.principal ?? null, change.requestedBy, 'apps:write'))
    choices.push({ decision: 'withdraw', label: 'Withdraw', secondary: true });
  if (choices.length === 0) return <span className="meta">waiting</span>;
  return (
    <DecisionForm
      what={`the change to ${change.installName}`}
      choices={choices}
      withComment={canDecide}
      pending={decide.isPending}
      error={decide.error}
      onDecide={(decision, comment) =>
        decide.mutate({ install: change.installName, id: change.id, decision, body: commentBody(comment) })
      }
    />
  );
}
