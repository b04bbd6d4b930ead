// PUT /apps/:name/versions/:id/provenance (docs/provenance.md "The route"): its own scope, so a body
// that is not JSON answers as a bundle that is not one (400 provenance_invalid, reason malformed).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../db/pool.ts';
import { principalOf } from '../../http/auth.ts';
import { ApiError } from '../../http/errors.ts';
import { errors } from '../../http/responses.ts';
import { depthRefusal, unstorableRefusal } from '../../http/server.ts';
import type { RootLoader } from '../../provenance/index.ts';
import type { ModuleStorage } from '../../storage/module-storage.ts';
import { AppName, VersionSummary } from '../schemas.ts';
import { attachProvenance } from './provenance-store.ts';

export interface ProvenanceRouteDeps {
  database: Database;
  /** Null when the deployment has no runner or no module storage (503 apps_unavailable). */
  storage: ModuleStorage | null;
  signatures: 'off' | 'optional' | 'required';
  roots: RootLoader;
}

/** A bundle is at most this large: a certificate chain, a few log entries and timestamps. */
const MAX_BUNDLE_BYTES = 1024 * 1024;

const BUNDLE_TYPES = ['application/json', 'application/vnd.dev.sigstore.bundle.v0.3+json'];

const Bundle = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      'A Sigstore bundle in its JSON form (as `cosign … --bundle` or sigstore-js write it): a message signature over the module or a DSSE in-toto statement naming its sha256',
    examples: [{ mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json' }],
  },
);

export function provenanceRoutes(deps: ProvenanceRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const parse = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser(
      BUNDLE_TYPES,
      { parseAs: 'string', bodyLimit: MAX_BUNDLE_BYTES },
      (request, body, done) => {
        // As every JSON body: too deep, or holding text PostgreSQL cannot store, is refused before any handler.
        const text = String(body);
        const tooDeep = depthRefusal(text);
        if (tooDeep) return done(tooDeep);
        parse(request, text, (error, json) => {
          if (error)
            return done(new ApiError('provenance_invalid', 'the body is not JSON', { reason: 'malformed' }));
          const unstorable = unstorableRefusal(text, json);
          return unstorable ? done(unstorable) : done(null, json);
        });
      },
    );

    app.put(
      '/apps/:name/versions/:id/provenance',
      {
        bodyLimit: MAX_BUNDLE_BYTES,
        config: { permission: 'apps:publish' },
        schema: {
          tags: ['apps'],
          operationId: 'attachAppVersionProvenance',
          summary:
            'Attach a Sigstore bundle to an uploaded version of the tenant’s own: verified against the module, recorded (replacing any earlier)',
          params: Type.Object({ name: AppName, id: Type.String({ format: 'uuid' }) }),
          body: Bundle,
          response: {
            200: VersionSummary,
            ...errors(
              'provenance_invalid',
              'not_found',
              'signatures_off',
              'provenance_locked',
              'provenance_unavailable',
              'apps_unavailable',
            ),
          },
        },
      },
      async (request) => {
        if (deps.signatures === 'off')
          throw new ApiError('signatures_off', 'APP_SIGNATURES is off: this deployment takes no bundle');
        if (!deps.storage)
          throw new ApiError('apps_unavailable', 'this deployment has no app runner or no module storage');
        return attachProvenance(
          { database: deps.database, principal: principalOf(request), requestId: request.id },
          { storage: deps.storage, roots: deps.roots },
          request.params,
          request.body,
        );
      },
    );
  };
}
