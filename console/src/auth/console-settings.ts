// The console's sign-in settings, read before anyone signs in from the api's public /console/config.json
// (src/console/routes.ts): whether the deployment's identity provider signs people in, and as which client.
import { useQuery } from '@tanstack/react-query';
import { type ConsoleSettings, readConsoleSettings } from './oidc-rules.ts';

const SETTINGS_URL = `${import.meta.env.BASE_URL}config.json`;

async function fetchConsoleSettings(signal: AbortSignal): Promise<ConsoleSettings> {
  const response = await fetch(SETTINGS_URL, { signal, headers: { accept: 'application/json' } });
  const settings = response.ok ? readConsoleSettings(await response.json().catch(() => null)) : null;
  if (!settings) throw new Error(`the console's settings could not be read (HTTP ${response.status})`);
  return settings;
}

/** The settings, read once per page load (they change only when the platform restarts). */
export const useConsoleSettings = () =>
  useQuery({
    queryKey: ['console-settings'],
    queryFn: ({ signal }) => fetchConsoleSettings(signal),
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
    retry: 2,
  });
