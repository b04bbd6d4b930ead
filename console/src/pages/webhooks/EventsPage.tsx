// Registered so its URL and the API's links open; its content is to be built.
import { Placeholder } from '../../components/Placeholder.tsx';

export default function EventsPage() {
  return <Placeholder title="Webhook events" about="The event catalogue, each event with its sample." />;
}
