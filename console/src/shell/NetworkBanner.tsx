// Said while the platform cannot be reached: the queries retry by themselves; "Retry now" does not wait.
import { useQueryClient } from '@tanstack/react-query';
import { usePlatformUnreachable } from '../api/connection.ts';

export function NetworkBanner() {
  const unreachable = usePlatformUnreachable();
  const client = useQueryClient();
  if (!unreachable) return null;
  return (
    <div className="banner" role="alert">
      <span>The platform cannot be reached. Retrying…</span>
      <button type="button" onClick={() => void client.refetchQueries({ type: 'active' })}>
        Retry now
      </button>
    </div>
  );
}
