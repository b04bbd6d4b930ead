// Registered so its URL and the API's links open; its content is to be built.
import { Placeholder } from '../../components/Placeholder.tsx';

export default function RuleSetPage() {
  return <Placeholder title="Rule set" about="A rule set and its versions." />;
}
