// A workflow or rule set as the API answers it: every version with its dates, the version the URL names
// (or the current one) with its validation and body, and its open approval request with the decide
// buttons. Read-only otherwise: definitions are written through the API.
import type { UseQueryResult } from '@tanstack/react-query';
import { Link } from 'react-router';
import { Failure } from '../../components/Failure.tsx';
import { JsonBlock } from '../../components/JsonBlock.tsx';
import { Loading } from '../../components/Loading.tsx';
import { type Column, Table } from '../../components/Table.tsx';
import { When } from '../../components/When.tsx';
import {
  type DefinitionKind,
  definitionApprovalPath,
  definitionNoun,
  definitionPath,
  versionNumber,
} from '../approvals/approvals-rules.ts';
import { DecideDefinition } from '../approvals/DefinitionApprovalsQueue.tsx';
import { useDefinitionApprovals } from '../approvals/queries.ts';
import { jsonText, listText } from '../apps/app-rules.ts';
import { shownVersion } from './definition-rules.ts';
import type { DefinitionVersion } from './queries.ts';

interface VersionRow {
  version: number;
  status: 'draft' | 'published';
  createdAt: string;
  createdBy: string;
  publishedAt: string | null;
  publishedBy: string | null;
}

interface Definition {
  key: string;
  published: DefinitionVersion | null;
  draft: DefinitionVersion | null;
  versions: VersionRow[];
}

export interface DefinitionViewProps {
  kind: DefinitionKind;
  definitionKey: string;
  /** The version the URL names, as text. */
  version: string | undefined;
  query: UseQueryResult<Definition, Error>;
}

export function DefinitionView({ kind, definitionKey, version, query }: DefinitionViewProps) {
  const asked = versionNumber(version);
  const noun = definitionNoun(kind);
  const title = `${noun.charAt(0).toUpperCase()}${noun.slice(1)} ${definitionKey}`;
  const columns: Column<VersionRow>[] = [
    {
      header: 'Version',
      cell: (v) => <Link to={definitionPath(kind, definitionKey, v.version)}>{v.version}</Link>,
    },
    { header: 'Status', cell: (v) => v.status },
    {
      header: 'Saved',
      cell: (v) => (
        <>
          <When at={v.createdAt} /> by {v.createdBy}
        </>
      ),
    },
    {
      header: 'Published',
      cell: (v) =>
        v.publishedAt ? (
          <>
            <When at={v.publishedAt} /> by {v.publishedBy}
          </>
        ) : (
          '—'
        ),
    },
  ];
  const definition = query.data;
  const shown = definition ? shownVersion(definition, asked) : null;
  return (
    <>
      <h1>{asked === null ? title : `${title}, version ${asked}`}</h1>
      {query.isPending ? <Loading what={`the ${noun}`} /> : null}
      {query.isError ? <Failure error={query.error} /> : null}
      {definition ? (
        <>
          <OpenApproval kind={kind} definitionKey={definitionKey} />
          {shown ? (
            <VersionBody version={shown} />
          ) : (
            <p className="empty">
              {asked === null
                ? `This ${noun} has no published version and no draft.`
                : `The platform answers the body of the published version and the draft only; version ${asked} is listed below.`}
            </p>
          )}
          <section aria-labelledby="versions-title" className="panel">
            <h2 id="versions-title">Versions</h2>
            <Table
              caption="Newest first"
              columns={columns}
              rows={definition.versions}
              rowKey={(v) => String(v.version)}
              empty="No versions."
            />
          </section>
        </>
      ) : null}
    </>
  );
}

function VersionBody({ version }: { version: DefinitionVersion }) {
  const { errors, warnings } = version.validation;
  return (
    <section aria-labelledby="body-title" className="panel">
      <h2 id="body-title">
        Version {version.version} ({version.status})
      </h2>
      <dl className="facts">
        <dt>Installs it calls</dt>
        <dd>{listText(version.installNames)}</dd>
        <dt>Validation</dt>
        <dd>
          {errors.length + warnings.length === 0 ? (
            'no errors, no warnings'
          ) : (
            <ul className="plain">
              {errors.map((e) => (
                <li key={`e:${e.path}:${e.code}`}>
                  Error at <code>{e.path}</code>: {e.message}
                </li>
              ))}
              {warnings.map((w) => (
                <li key={`w:${w.path}:${w.code}`}>
                  Warning at <code>{w.path}</code>: {w.message}
                </li>
              ))}
            </ul>
          )}
        </dd>
      </dl>
      <h3>Body</h3>
      <JsonBlock text={jsonText(version.body)} />
    </section>
  );
}

/** The definition's open approval request, if any, with its decide buttons. */
function OpenApproval({ kind, definitionKey }: { kind: DefinitionKind; definitionKey: string }) {
  const open = useDefinitionApprovals({ kind, key: definitionKey, status: 'open', limit: 1, offset: 0 });
  const approval = open.data?.items[0];
  if (open.isError) return <Failure error={open.error} title="Whether an approval is open is not known." />;
  if (!approval) return null;
  return (
    <section aria-labelledby="approval-title" className="panel">
      <h2 id="approval-title">Waiting for approval</h2>
      <p>
        Version {approval.version} waits for approval, requested <When at={approval.requestedAt} /> by{' '}
        {approval.requestedByName ?? approval.requestedBy}.{' '}
        <Link to={definitionApprovalPath(approval.id)}>Open the request</Link>
      </p>
      <DecideDefinition approval={approval} />
    </section>
  );
}
