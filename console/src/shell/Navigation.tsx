// The console's sections, with what waits in each: Home counts the attention items and unread
// notifications.
import { NavLink } from 'react-router';
import { useAttention, useUnreadCount } from '../pages/home/queries.ts';

export const SECTIONS = [
  { to: '/', label: 'Home', end: true },
  { to: '/apps', label: 'Apps', end: true },
  { to: '/apps/installs', label: 'Installs', end: false },
  { to: '/runs', label: 'Runs', end: false },
  { to: '/vendor-sessions', label: 'Vendor sessions', end: false },
  { to: '/webhooks', label: 'Webhooks', end: false },
  { to: '/approvals', label: 'Approvals', end: false },
  { to: '/usage', label: 'Usage', end: false },
] as const;

function Count({ count, label }: { count: number | undefined; label: string }) {
  if (!count) return null;
  return (
    <span className="count" title={label}>
      {count}
      <span className="visually-hidden"> {label}</span>
    </span>
  );
}

export function Navigation() {
  const attention = useAttention();
  const unread = useUnreadCount();
  return (
    <nav aria-label="Sections" className="sections">
      <ul>
        {SECTIONS.map((section) => (
          <li key={section.to}>
            <NavLink to={section.to} end={section.end}>
              {section.label}
              {section.to === '/' ? (
                <>
                  <Count count={attention.data?.items.length} label="need attention" />
                  <Count count={unread.data?.total} label="unread notifications" />
                </>
              ) : null}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
