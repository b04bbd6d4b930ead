// Registered so its URL and the API's links open; its content is to be built.
import { Placeholder } from '../../components/Placeholder.tsx';

export default function EndpointPage() {
  return <Placeholder title="Webhook endpoint" about="One endpoint with its deliveries." />;
}
