// Registered so its URL and the API's links open; its content is to be built.
import { Placeholder } from '../../components/Placeholder.tsx';

export default function InstallsPage() {
  return (
    <Placeholder
      title="Installs"
      about="Installs with their health: success rate, latency, circuit state, quota use."
    />
  );
}
