// Registered so its URL and the API's links open; its content is to be built.
import { Placeholder } from '../../components/Placeholder.tsx';

export default function InstallChangePage() {
  return (
    <Placeholder
      title="Install change"
      about="A pending change of an install, with approve, reject and withdraw."
    />
  );
}
