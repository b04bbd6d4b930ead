// Upload a built module (.wasm) and publish it: the upload answers the version, uploaded; publishing it
// publishes at once, or opens a request for another administrator (or the operator's review). A refusal
// shows as the catalogue's sentence, with the manifest's path when the platform named one.
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { Failure } from '../../components/Failure.tsx';
import { publishOutcome, uploadProblemPath, uploadRefusalLead, versionPath } from './app-rules.ts';
import { usePublish, useUpload } from './queries.ts';

export function UploadPanel() {
  const [file, setFile] = useState<File | null>(null);
  const upload = useUpload();
  const publish = usePublish();
  const uploaded = upload.data;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!file) return;
    publish.reset();
    upload.mutate(file);
  };

  return (
    <section aria-labelledby="upload-title" className="panel">
      <h2 id="upload-title">Upload a module</h2>
      <p className="meta">
        A module built with <code>npx app build</code>. Uploading checks it; publishing makes it installable.
      </p>
      <form className="upload" onSubmit={submit}>
        <label>
          Module (.wasm)
          <input
            type="file"
            accept=".wasm,application/wasm"
            onChange={(event) => setFile(event.target.files?.[0] ?? null)}
          />
        </label>
        <button type="submit" disabled={!file || upload.isPending}>
          {upload.isPending ? 'Uploading…' : 'Upload'}
        </button>
      </form>
      {upload.isError ? <UploadRefusal error={upload.error} /> : null}
      {uploaded ? (
        <div className="notice">
          <output className="notice-line">
            Uploaded{' '}
            <Link to={versionPath(uploaded.name, uploaded.id)}>{`${uploaded.name} ${uploaded.version}`}</Link>
            {uploaded.title ? ` (${uploaded.title})` : null}; it is not published yet.
          </output>
          {publish.data ? (
            <output className="notice-line">{publishOutcome(publish.data)}</output>
          ) : (
            <button
              type="button"
              disabled={publish.isPending}
              onClick={() => publish.mutate({ name: uploaded.name, id: uploaded.id })}
            >
              Publish {uploaded.name} {uploaded.version}
            </button>
          )}
        </div>
      ) : null}
      {publish.isError ? <Failure error={publish.error} title="The version was not published." /> : null}
    </section>
  );
}

/** The refusal, led by what its code means and where in the manifest, when the platform said. */
function UploadRefusal({ error }: { error: Error }) {
  const lead = uploadRefusalLead(error) ?? 'The module was not uploaded';
  const path = uploadProblemPath(error);
  return <Failure error={error} title={path ? `${lead} (at ${path}).` : `${lead}.`} />;
}
