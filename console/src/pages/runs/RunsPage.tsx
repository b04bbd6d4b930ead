// Registered so its URL and the API's links open; its content is to be built.
import { Placeholder } from '../../components/Placeholder.tsx';

export default function RunsPage() {
  return <Placeholder title="Runs" about="Workflow runs filtered by status, workflow, subject and time." />;
}
