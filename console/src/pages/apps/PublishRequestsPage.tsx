// Registered so its URL and the API's links open; its content is to be built.
import { Placeholder } from '../../components/Placeholder.tsx';

export default function PublishRequestsPage() {
  return (
    <Placeholder
      title="Publish requests"
      about="Versions waiting for approval (GET /apps/approvals), with approve and reject."
    />
  );
}
