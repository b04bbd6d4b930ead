// Registered so its URL and the API's links open; its content is to be built.
import { Placeholder } from '../../components/Placeholder.tsx';

export default function ApprovalsPage() {
  return (
    <Placeholder
      title="Approvals"
      about="Definitions' approvals and install changes waiting for a decision."
    />
  );
}
