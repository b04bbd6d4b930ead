// One change of an install (the link attention items and notifications give): found among the install's
// open changes, else its decided ones (the API lists changes by install; it has no read of one), with
// approve, reject and withdraw while it is open.
import { Link, useParams } from 'react-router';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { ChangePanel } from './ChangePanel.tsx';
import { installPath } from './install-rules.ts';
import { useChanges } from './queries.ts';

export default function InstallChangePage() {
  const { name = '', changeId = '' } = useParams();
  const open = useChanges(name, 'open');
  const decided = useChanges(name, 'decided');
  const change = [...(open.data?.items ?? []), ...(decided.data?.items ?? [])].find((c) => c.id === changeId);
  const pending = open.isPending || decided.isPending;
  return (
    <>
      <h1>Install change</h1>
      <p>
        A change of the install <Link to={installPath(name)}>{name}</Link>.
      </p>
      {pending ? <Loading what="the change" /> : null}
      {open.isError ? <Failure error={open.error} /> : null}
      {decided.isError ? <Failure error={decided.error} /> : null}
      {!pending && !open.isError && !decided.isError && !change ? (
        <p className="empty">This install has no such change (it may have been removed with its install).</p>
      ) : null}
      {change ? (
        <section aria-labelledby="the-change-title" className="panel">
          <h2 id="the-change-title">
            {change.decision === null ? 'Waiting for approval' : `Decided: ${change.decision}`}
          </h2>
          <ChangePanel change={change} linkToPage={false} />
        </section>
      ) : null}
    </>
  );
}
