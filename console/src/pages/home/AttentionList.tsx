// What waits for someone now (GET /attention), each with a link to where it is decided.
import { Link } from 'react-router';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { When } from '../../components/When.tsx';
import { useAttention } from './queries.ts';

export function AttentionList() {
  const attention = useAttention();
  return (
    <section aria-labelledby="attention-title" className="panel">
      <h2 id="attention-title">Needs attention</h2>
      {attention.isPending ? <Loading what="what needs attention" /> : null}
      {attention.isError ? <Failure error={attention.error} /> : null}
      {attention.data?.items.length === 0 ? <p className="empty">Nothing waits for anyone.</p> : null}
      {attention.data && attention.data.items.length > 0 ? (
        <ul className="items">
          {attention.data.items.map((item) => (
            <li key={`${item.kind}:${item.resource.id}`} className={`item item-${item.kind}`}>
              {item.href ? <Link to={item.href}>{item.title}</Link> : <span>{item.title}</span>}
              <span className="meta">
                waiting since <When at={item.since} />
              </span>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
