// Whether a version can be trusted and what stops it: its provenance (trusted or not, and by whom), the
// operator's block in force, and the operator's latest review of the tenant's own version.
import { When } from '../../components/When.tsx';
import { type AppVersion, provenanceVerdict, signerText } from './app-rules.ts';

export function ProvenanceFacts({ version }: { version: AppVersion }) {
  const { provenance, block, review } = version;
  return (
    <section aria-labelledby="provenance-title" className="panel">
      <h2 id="provenance-title">Provenance, blocks and review</h2>
      <p className={provenance?.trusted ? 'verdict verdict-good' : 'verdict'}>
        {provenanceVerdict(provenance)}
      </p>
      {provenance ? (
        <dl className="facts">
          <dt>Trusted</dt>
          <dd>{provenance.trusted ? 'yes' : 'no'}</dd>
          <dt>Trusted as</dt>
          <dd>{provenance.trustedSigner ?? 'no trusted signer names it'}</dd>
          <dt>Signer</dt>
          <dd>{signerText(provenance.signer)}</dd>
          <dt>Kind</dt>
          <dd>{provenance.kind}</dd>
          <dt>Signed</dt>
          <dd>{provenance.signedAt ? <When at={provenance.signedAt} /> : 'no time recorded'}</dd>
          {provenance.source ? (
            <>
              <dt>Source</dt>
              <dd>{provenance.source}</dd>
            </>
          ) : null}
        </dl>
      ) : null}
      <h3>Block</h3>
      {block ? (
        <p className="verdict verdict-alert">
          Blocked by the operator ({block.scope === 'app' ? 'every version of this app' : 'this module'})
          since <When at={block.blockedAt} />: {block.reason}. Calls, installs and publishing it are refused
          while the block holds.
        </p>
      ) : (
        <p>Not blocked.</p>
      )}
      <h3>Operator's review</h3>
      {review ? (
        <dl className="facts">
          <dt>Status</dt>
          <dd>{review.status}</dd>
          <dt>Requested</dt>
          <dd>
            <When at={review.requestedAt} /> by {review.requestedBy}
          </dd>
          <dt>Decided</dt>
          <dd>
            {review.decidedAt ? (
              <>
                <When at={review.decidedAt} /> by {review.decidedBy}
              </>
            ) : (
              'not yet'
            )}
          </dd>
          <dt>Comment</dt>
          <dd>{review.comment ?? 'none'}</dd>
        </dl>
      ) : (
        <p>{version.publisher === 'platform' ? 'Platform versions are not reviewed.' : 'No review.'}</p>
      )}
    </section>
  );
}
