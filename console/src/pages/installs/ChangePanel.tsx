// A change of an install waiting for approval (or decided): what it asks — hosts, needs and handlers it
// adds, the config and whether enabled — who asked and why; approve or reject (apps:publish, with a
// comment) and withdraw (apps:write). Refusals (four-eyes, the install changed since) as sentences.
import { useId, useState } from 'react';
import { Link } from 'react-router';
import { useCan } from '../../auth/useCan.ts';
import { Failure } from '../../components/Failure.tsx';
import { JsonBlock } from '../../components/JsonBlock.tsx';
import { When } from '../../components/When.tsx';
import { changePath, type InstallView } from './install-rules.ts';
import { type Decision, useDecideChange } from './queries.ts';

export type InstallChange = NonNullable<InstallView['pendingChange']>;

const list = (items: readonly string[]) => (items.length ? items.join(', ') : 'none');

export function ChangePanel({ change, linkToPage }: { change: InstallChange; linkToPage: boolean }) {
  const id = useId();
  const canDecide = useCan('apps:publish');
  const canWithdraw = useCan('apps:write');
  const [comment, setComment] = useState('');
  const decide = useDecideChange(change.installName);
  const open = change.decision === null;
  const act = (decision: Decision) => decide.mutate({ id: change.id, decision, comment });
  return (
    <div className="change">
      <dl className="facts">
        <dt>Asked by</dt>
        <dd>
          {change.requestedBy}, <When at={change.requestedAt} />
        </dd>
        <dt>Why</dt>
        <dd>{change.comment ?? <span className="meta">no comment</span>}</dd>
        <dt>What</dt>
        <dd>
          {change.origin === 'auto_upgrade'
            ? 'an automatic upgrade'
            : change.newInstall
              ? 'a new install'
              : 'a save'}
          {change.enabled ? ', enabled' : ', disabled'}
        </dd>
        <dt>Hosts added</dt>
        <dd>{list(change.hostsAdded)}</dd>
        <dt>Needs added</dt>
        <dd>{list(change.needsAdded)}</dd>
        <dt>Handlers added</dt>
        <dd>{list(change.handlesAdded)}</dd>
        <dt>Approval rules</dt>
        <dd>
          {change.approvalSettings.fourEyes
            ? 'four eyes: someone else approves'
            : 'any holder of apps:publish'}
        </dd>
        {open ? null : (
          <>
            <dt>Decision</dt>
            <dd>
              {change.decision} by {change.decidedBy}
              {change.decidedAt ? (
                <>
                  , <When at={change.decidedAt} />
                </>
              ) : null}
              {change.decisionComment ? `: ${change.decisionComment}` : ''}
            </dd>
          </>
        )}
      </dl>
      <details>
        <summary>Config asked for</summary>
        <JsonBlock text={JSON.stringify(change.config, null, 2)} />
      </details>
      {linkToPage ? <Link to={changePath(change.installName, change.id)}>Open the change’s page</Link> : null}
      {open && (canDecide || canWithdraw) ? (
        <div className="decide">
          {canDecide ? (
            <>
              <label htmlFor={`${id}-comment`}>Decision comment (optional)</label>
              <input
                id={`${id}-comment`}
                value={comment}
                onChange={(event) => setComment(event.target.value)}
              />
              <button type="button" disabled={decide.isPending} onClick={() => act('approve')}>
                Approve change
              </button>
              <button
                type="button"
                className="secondary"
                disabled={decide.isPending}
                onClick={() => act('reject')}
              >
                Reject change
              </button>
            </>
          ) : null}
          {canWithdraw ? (
            <button
              type="button"
              className="secondary"
              disabled={decide.isPending}
              onClick={() => act('withdraw')}
            >
              Withdraw change
            </button>
          ) : null}
        </div>
      ) : null}
      {decide.isError ? <Failure error={decide.error} title="The change was not decided." /> : null}
      {decide.isSuccess ? <output className="status">The change is {decide.data.decision}.</output> : null}
    </div>
  );
}
