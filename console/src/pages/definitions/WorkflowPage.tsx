// Registered so its URL and the API's links open; its content is to be built.
import { Placeholder } from '../../components/Placeholder.tsx';

export default function WorkflowPage() {
  return <Placeholder title="Workflow" about="A workflow definition and its versions." />;
}
