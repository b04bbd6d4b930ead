// Registered so its URL and the API's links open; its content is to be built.
import { Placeholder } from '../../components/Placeholder.tsx';

export default function AppVersionPage() {
  return (
    <Placeholder
      title="App version"
      about="One version of an app: its manifest, provenance, blocks and reviews."
    />
  );
}
