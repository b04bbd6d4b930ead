// Registered so its URL and the API's links open; its content is to be built.
import { Placeholder } from '../../components/Placeholder.tsx';

export default function DefinitionApprovalPage() {
  return (
    <Placeholder
      title="Definition approval"
      about="One definition approval with approve, reject and withdraw."
    />
  );
}
