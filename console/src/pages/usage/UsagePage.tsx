// Registered so its URL and the API's links open; its content is to be built.
import { Placeholder } from '../../components/Placeholder.tsx';

export default function UsagePage() {
  return <Placeholder title="Usage" about="Metering per install and per month, and the tenant's quotas." />;
}
