// Home: what waits for someone, what happened lately, and the principal's notifications.
import { ActivityFeed } from './ActivityFeed.tsx';
import { AttentionList } from './AttentionList.tsx';
import { NotificationList } from './NotificationList.tsx';

export default function HomePage() {
  return (
    <>
      <h1>Home</h1>
      <div className="home">
        <AttentionList />
        <NotificationList />
        <ActivityFeed />
      </div>
    </>
  );
}
