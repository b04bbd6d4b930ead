// Registered so its URL and the API's links open; its content is to be built.
import { Placeholder } from '../../components/Placeholder.tsx';

export default function CasePage() {
  return <Placeholder title="Case" about="A case the activity feed links to." />;
}
