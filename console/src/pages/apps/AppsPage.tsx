// Registered so its URL and the API's links open; its content is to be built.
import { Placeholder } from '../../components/Placeholder.tsx';

export default function AppsPage() {
  return (
    <Placeholder
      title="Apps"
      about="The catalogue (GET /apps): the apps this tenant may install, each with its versions."
    />
  );
}
