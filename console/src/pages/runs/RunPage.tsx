// Registered so its URL and the API's links open; its content is to be built.
import { Placeholder } from '../../components/Placeholder.tsx';

export default function RunPage() {
  return (
    <Placeholder
      title="Run"
      about="A run's steps as a timeline, their invocations and attempts, its vendor sessions and related runs."
    />
  );
}
