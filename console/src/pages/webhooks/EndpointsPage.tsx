// Registered so its URL and the API's links open; its content is to be built.
import { Placeholder } from '../../components/Placeholder.tsx';

export default function EndpointsPage() {
  return (
    <Placeholder
      title="Webhooks"
      about="Outbound webhook endpoints: create, edit, rotate, enable, disable, test."
    />
  );
}
