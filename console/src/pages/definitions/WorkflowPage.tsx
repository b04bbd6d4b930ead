// A workflow (`/workflows/<key>`, `/workflows/<key>/versions/<n>`: the API's activity links).
import { useParams } from 'react-router';
import { DefinitionView } from './DefinitionView.tsx';
import { useWorkflow } from './queries.ts';

export default function WorkflowPage() {
  const { key = '', version } = useParams();
  return <DefinitionView kind="workflow" definitionKey={key} version={version} query={useWorkflow(key)} />;
}
