// The principal's notifications (GET /notifications), newest first, paged in the URL, all or unread only;
// each marked read on its own (POST /notifications/{id}/read: any signed-in principal may).
import { Link } from 'react-router';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { Paged } from '../../components/Paged.tsx';
import { usePageParams } from '../../components/usePageParams.ts';
import { When } from '../../components/When.tsx';
import { notificationHref, notificationText } from './notification-rules.ts';
import { useMarkRead, useNotifications } from './queries.ts';

export function NotificationList() {
  const page = usePageParams({ defaultLimit: 10, maxLimit: 100, prefix: 'notifications' });
  const unread = page.filter('unread') === 'true';
  const notifications = useNotifications({ limit: page.limit, offset: page.offset, unread });
  const markRead = useMarkRead();
  const items = notifications.data?.items ?? [];
  return (
    <section aria-labelledby="notifications-title" className="panel">
      <h2 id="notifications-title">Notifications</h2>
      <fieldset className="filters">
        <legend>Show</legend>
        <label>
          <input
            type="checkbox"
            checked={unread}
            onChange={(event) => page.setFilters({ unread: event.target.checked ? 'true' : null })}
          />
          Unread only
        </label>
      </fieldset>
      {notifications.isPending ? <Loading what="notifications" /> : null}
      {notifications.isError ? <Failure error={notifications.error} /> : null}
      {markRead.isError ? (
        <Failure error={markRead.error} title="The notification was not marked read." />
      ) : null}
      {notifications.data && items.length === 0 ? (
        <p className="empty">{unread ? 'No unread notifications.' : 'No notifications.'}</p>
      ) : null}
      {items.length > 0 ? (
        <ul className="items">
          {items.map((notification) => {
            const text = notificationText(notification);
            const href = notificationHref(notification);
            return (
              <li key={notification.id} className={notification.read ? 'item' : 'item item-unread'}>
                {href ? <Link to={href}>{text}</Link> : <span>{text}</span>}
                <span className="meta">
                  <When at={notification.createdAt} />
                  {notification.read ? ' · read' : null}
                </span>
                {notification.read ? null : (
                  <button
                    type="button"
                    className="secondary"
                    disabled={markRead.isPending && markRead.variables === notification.id}
                    onClick={() => markRead.mutate(notification.id)}
                  >
                    Mark read<span className="visually-hidden">: {text}</span>
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      ) : null}
      {notifications.data ? (
        <Paged
          page={page}
          shown={items.length}
          total={notifications.data.total}
          totalIsEstimate={notifications.data.totalIsEstimate}
          noun="notifications"
        />
      ) : null}
    </section>
  );
}
