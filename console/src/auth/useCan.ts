// Whether the signed-in principal may do something: a page offers a write only when this says so
// (`const canWrite = useCan('apps:write')`). The platform still decides every call.
import { can, type Permission } from './permissions.ts';
import { useSession } from './session.ts';

export function useCan(permission: Permission): boolean {
  const session = useSession();
  return session !== null && can(session.principal, permission);
}
