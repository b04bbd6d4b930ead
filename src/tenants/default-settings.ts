// A new tenant's settings (settings.ts describes them). Apart from their schema so that creating a tenant
// (`platform token`) does not load TypeBox, which costs a command half a second.
import type { TenantSettings } from './settings.ts';

export function defaultTenantSettings(): TenantSettings {
  return {
    approvals: { required: false, requiredFor: ['app', 'definitions'], fourEyes: true },
    collection: { flowUrl: null },
  };
}
