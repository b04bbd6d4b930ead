// Registered so its URL and the API's links open; its content is to be built.
import { Placeholder } from '../../components/Placeholder.tsx';

export default function DeliveriesPage() {
  return (
    <Placeholder
      title="Webhook deliveries"
      about="Deliveries with their attempts, filtered by endpoint, status, event and time; retry."
    />
  );
}
