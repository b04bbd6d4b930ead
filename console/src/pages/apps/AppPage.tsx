// Registered so its URL and the API's links open; its content is to be built.
import { Placeholder } from '../../components/Placeholder.tsx';

export default function AppPage() {
  return (
    <Placeholder
      title="App"
      about="An app's versions with their manifest, provenance, blocks and reviews; upload and publish."
    />
  );
}
