// Registered so its URL and the API's links open; its content is to be built.
import { Placeholder } from '../../components/Placeholder.tsx';

export default function VendorSessionsPage() {
  return (
    <Placeholder
      title="Vendor sessions"
      about="Vendor sessions (GET /app-callbacks) by install and state, with the webhooks each received."
    />
  );
}
