// One definition approval request (GET /definition-approvals/:id): what it publishes, who asked and when,
// its decision, and, while open, the decide buttons. It refreshes by itself while open.
import { Link, useParams } from 'react-router';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { When } from '../../components/When.tsx';
import { definitionNoun, definitionPath } from './approvals-rules.ts';
import { DecideDefinition } from './DefinitionApprovalsQueue.tsx';
import { useDefinitionApproval } from './queries.ts';

export default function DefinitionApprovalPage() {
  const { id = '' } = useParams();
  const approval = useDefinitionApproval(id);
  const a = approval.data;
  return (
    <>
      <p className="crumbs">
        <Link to="/approvals">Approvals</Link>
      </p>
      <h1>
        {a ? `Approval of ${definitionNoun(a.kind)} ${a.key} version ${a.version}` : 'Definition approval'}
      </h1>
      {approval.isPending ? <Loading what="the approval request" /> : null}
      {approval.isError ? <Failure error={approval.error} /> : null}
      {a ? (
        <section aria-labelledby="request-title" className="panel">
          <h2 id="request-title">Request</h2>
          <dl className="facts">
            <dt>Definition</dt>
            <dd>
              <Link to={definitionPath(a.kind, a.key, a.version)}>
                {`${definitionNoun(a.kind)} ${a.key} version ${a.version}`}
              </Link>
            </dd>
            <dt>Why</dt>
            <dd>{a.origin === 'rename' ? "an install rename's rewrite of the definition" : 'a publish'}</dd>
            <dt>Status</dt>
            <dd>{a.status}</dd>
            <dt>Requested</dt>
            <dd>
              <When at={a.requestedAt} /> by {a.requestedByName ?? a.requestedBy}
            </dd>
            <dt>Four-eyes</dt>
            <dd>{a.fourEyes ? 'yes: the requester may neither approve nor reject it' : 'no'}</dd>
            <dt>Decided</dt>
            <dd>
              {a.decidedAt ? (
                <>
                  <When at={a.decidedAt} /> by {a.decidedBy}
                </>
              ) : (
                'not yet'
              )}
            </dd>
            <dt>Comment</dt>
            <dd>{a.comment ?? 'none'}</dd>
          </dl>
          {a.status === 'open' ? <DecideDefinition approval={a} /> : null}
        </section>
      ) : null}
    </>
  );
}
