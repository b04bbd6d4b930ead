// What waits for a decision besides app versions: definitions' approval requests and install changes, each
// queue with its decide buttons (app versions' publish requests are under Apps: /apps/approvals).
import { Link } from 'react-router';
import { DefinitionApprovalsQueue } from './DefinitionApprovalsQueue.tsx';
import { InstallChangesQueue } from './InstallChangesQueue.tsx';

export default function ApprovalsPage() {
  return (
    <>
      <h1>Approvals</h1>
      <p className="meta">
        Publish requests of app versions are under <Link to="/apps/approvals">Apps › Publish requests</Link>.
      </p>
      <DefinitionApprovalsQueue />
      <InstallChangesQueue />
    </>
  );
}
