// Registered so its URL and the API's links open; its content is to be built.
import { Placeholder } from '../../components/Placeholder.tsx';

export default function InstallPage() {
  return (
    <Placeholder
      title="Install"
      about="An install: config, hosts, secrets, limits, cached values, circuit, aliases, its pending change and a test call."
    />
  );
}
