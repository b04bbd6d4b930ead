// One run (GET /workflow-runs/:id): its status and error, cancel (apps:write, while it moves), its steps as
// a timeline, each step's invocations and attempts, the vendor sessions it waits or waited on, and the
// runs on the same subject. Read again every REFRESH.inMotion while it runs or waits.
import { useParams } from 'react-router';
import { useCan } from '../../auth/useCan.ts';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { When } from '../../components/When.tsx';
import { CancelRun } from './CancelRun.tsx';
import { useRun } from './queries.ts';
import { RelatedRuns } from './RelatedRuns.tsx';
import { RunInvocations } from './RunInvocations.tsx';
import { RunSessions } from './RunSessions.tsx';
import { RunStatus } from './RunStatus.tsx';
import { isInMotion } from './run-rules.ts';
import { StepTimeline } from './StepTimeline.tsx';

export default function RunPage() {
  const { id = '' } = useParams();
  const run = useRun(id);
  const canWrite = useCan('apps:write');
  if (run.isPending) return <Loading what="the run" />;
  if (run.isError) {
    return (
      <>
        <h1>Run</h1>
        <Failure error={run.error} />
      </>
    );
  }
  const data = run.data;
  const moving = isInMotion(data.status);
  return (
    <>
      <h1>
        Run <code>{data.id}</code>
      </h1>
      <section aria-labelledby="run-summary-title" className="panel">
        <h2 id="run-summary-title">Summary</h2>
        <dl className="facts">
          <dt>Status</dt>
          <dd>
            <RunStatus status={data.status} />
            {moving ? <span className="meta"> · this page follows it</span> : null}
          </dd>
          <dt>Workflow</dt>
          <dd>
            {data.workflow} version {data.version}
          </dd>
          <dt>Subject</dt>
          <dd>{data.subjectId}</dd>
          <dt>Started</dt>
          <dd>
            <When at={data.createdAt} /> by {data.createdBy}
          </dd>
          <dt>Ended</dt>
          <dd>{data.completedAt ? <When at={data.completedAt} /> : 'not yet'}</dd>
          {data.error ? (
            <>
              <dt>Error</dt>
              <dd className="run-error">
                <code>{data.error.code}</code> {data.error.message}
              </dd>
            </>
          ) : null}
          {data.traceUrl ? (
            <>
              <dt>Trace</dt>
              <dd>
                <a href={data.traceUrl} rel="noreferrer" target="_blank">
                  Open the run’s trace
                </a>
              </dd>
            </>
          ) : null}
        </dl>
        {canWrite ? <CancelRun id={data.id} status={data.status} /> : null}
      </section>
      <StepTimeline steps={data.steps} moving={moving} />
      <RunInvocations runId={data.id} moving={moving} />
      <RunSessions runId={data.id} moving={moving} />
      <RelatedRuns runId={data.id} subjectId={data.subjectId} />
    </>
  );
}
