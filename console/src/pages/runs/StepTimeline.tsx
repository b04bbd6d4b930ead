// A run's steps as a timeline: a row per step with its start, end, duration and outcome, and a bar on the
// run's span drawn in SVG by its attributes (the CSP allows no style attribute). The rows: timelineRows.
import { When } from '../../components/When.tsx';
import { RunStatus } from './RunStatus.tsx';
import { formatDuration, type StepLike, type TimelineRow, timelineRows } from './run-rules.ts';

export function StepTimeline({ steps, moving }: { steps: readonly StepLike[]; moving: boolean }) {
  const rows = timelineRows(steps, Date.now());
  return (
    <section aria-labelledby="steps-title" className="panel">
      <h2 id="steps-title">Steps</h2>
      <table className="timeline">
        <caption>
          Each step’s start, end, duration and outcome{moving ? '; a step still going counts to now' : ''}
        </caption>
        <thead>
          <tr>
            <th scope="col">Step</th>
            <th scope="col">Outcome</th>
            <th scope="col" className="numeric">
              Attempts
            </th>
            <th scope="col">Started</th>
            <th scope="col">Ended</th>
            <th scope="col" className="numeric">
              Duration
            </th>
            <th scope="col">On the run’s timeline</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id}>
              <th scope="row">
                {row.id} <span className="meta">{row.type}</span>
              </th>
              <td>
                <RunStatus status={row.status} />
              </td>
              <td className="numeric">{row.attempts}</td>
              <td>{row.startedAt ? <When at={row.startedAt} /> : ''}</td>
              <td>{row.completedAt ? <When at={row.completedAt} /> : ''}</td>
              <td className="numeric">
                {row.durationMs === null ? '' : formatDuration(row.durationMs)}
                {row.ongoing ? ' so far' : ''}
              </td>
              <td>
                <Bar row={row} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** The step's bar; none for a step that never started (the duration column says so too). */
function Bar({ row }: { row: TimelineRow }) {
  if (row.durationMs === null) return <span className="meta">not started</span>;
  return (
    <svg className="bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false">
      <rect className="bar-track" x="0" y="0" width="100" height="10" />
      <rect className={`bar-fill bar-${row.status}`} x={row.offset} y="1" width={row.width} height="8" />
    </svg>
  );
}
