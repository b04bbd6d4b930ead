// What happened lately in the tenant (GET /activity, newest first), each item's link to its page. The API
// pages it by limit alone (1 to 50): "Show more" asks for more, kept in the URL.
import { Link, useSearchParams } from 'react-router';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { withParams } from '../../components/page-params.ts';
import { When } from '../../components/When.tsx';
import { useActivity } from './queries.ts';

const STEP = 10;
const MAX = 50;

export function ActivityFeed() {
  const [params] = useSearchParams();
  const asked = Number(params.get('activity.limit'));
  const limit = Number.isInteger(asked) && asked >= 1 ? Math.min(asked, MAX) : STEP;
  const activity = useActivity(limit);
  const items = activity.data?.items ?? [];
  return (
    <section aria-labelledby="activity-title" className="panel">
      <h2 id="activity-title">Activity</h2>
      {activity.isPending ? <Loading what="activity" /> : null}
      {activity.isError ? <Failure error={activity.error} /> : null}
      {activity.data && items.length === 0 ? <p className="empty">Nothing has happened yet.</p> : null}
      {items.length > 0 ? (
        <ol className="items">
          {items.map((item) => (
            <li key={item.id} className={item.tone === 'alert' ? 'item item-alert' : 'item'}>
              {item.href ? <Link to={item.href}>{item.text}</Link> : <span>{item.text}</span>}
              <span className="meta">
                <When at={item.occurredAt} />
              </span>
            </li>
          ))}
        </ol>
      ) : null}
      {items.length === limit && limit < MAX ? (
        <Link
          className="more"
          to={{ search: `?${withParams(params, { 'activity.limit': Math.min(limit + STEP, MAX) })}` }}
        >
          Show more activity
        </Link>
      ) : null}
    </section>
  );
}
