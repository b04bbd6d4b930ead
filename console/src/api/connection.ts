// Whether the platform answers: set by every request of the client (client.ts), read by the banner that
// says it cannot be reached (shell/NetworkBanner.tsx). The browser's own offline state counts too.
import { onlineManager } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';

let unreachable = false;
const listeners = new Set<() => void>();

function set(value: boolean): void {
  if (unreachable === value) return;
  unreachable = value;
  for (const listener of listeners) listener();
}

export const reportUnreachable = () => set(true);
export const reportReachable = () => set(false);

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const unsubscribe = onlineManager.subscribe(listener);
  return () => {
    listeners.delete(listener);
    unsubscribe();
  };
}

/** True while the last request could not reach the platform, or the browser is offline. */
export function usePlatformUnreachable(): boolean {
  return useSyncExternalStore(subscribe, () => unreachable || !onlineManager.isOnline());
}
