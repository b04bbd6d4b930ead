// Collection submission routes (docs/handoff.md): a tenant's users and machines create, send and read
// submissions; the applicant, with the token of their link, asks for the status and the hand-off. Thin:
// parse, authorize, call the service.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { TokenVerifier } from '../auth/tokens.ts';
import { bearerToken, principalOf } from '../http/auth.ts';
import { errors } from '../http/responses.ts';
import { reportDropOff } from './drop-offs-store.ts';
import { type HandoffDeps, type HandoffRequest, handOff, submissionStatus } from './handoff.ts';
import { requestLink } from './link-requests-store.ts';
import {
  CreateSubmissionBody,
  DropOffBody,
  DropOffEvent,
  HandoffAnswer,
  LinkRequestAnswer,
  Submission,
  SubmissionParams,
  SubmissionStatusAnswer,
} from './schemas.ts';
import {
  createSubmission,
  getSubmission,
  type SubmissionContext,
  sendSubmission,
} from './submissions-store.ts';

const tags = ['collection-submissions'];

export interface CollectionDeps extends HandoffDeps {
  /** The api's token verifier: an expired link's token is verified, but for its expiry, by it. */
  verifier: TokenVerifier;
}

export function collectionRoutes(deps: CollectionDeps): FastifyPluginAsyncTypebox {
  const contextOf = (request: FastifyRequest): SubmissionContext => ({
    database: deps.database,
    principal: principalOf(request),
    requestId: request.id,
  });
  const applicantRequest = (request: FastifyRequest, submissionId: string): HandoffRequest => ({
    principal: principalOf(request),
    submissionId,
    requestId: request.id,
  });

  return async (app) => {
    app.post(
      '/collection-submissions',
      {
        config: { permission: 'apps:write' },
        schema: {
          tags,
          operationId: 'createCollectionSubmission',
          summary: 'Create an applicant’s submission for a run of a subject (open until sent)',
          description:
            'Audited collection.submission.created. The applicant’s token is issued apart (docs/handoff.md "Applicant tokens"; in development `platform token --tenant <name> --applicant <id>`).',
          body: CreateSubmissionBody,
          // 404: no run of the tenant has that id
          response: { 201: Submission, ...errors('not_found') },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await createSubmission(contextOf(request), request.body)),
    );

    app.get(
      '/collection-submissions/:id',
      {
        config: { permission: 'apps:read' },
        schema: {
          tags,
          operationId: 'getCollectionSubmission',
          summary: 'A submission: its subject, run and status',
          params: SubmissionParams,
          response: { 200: Submission, ...errors('not_found') },
        },
      },
      async (request) => getSubmission(contextOf(request), request.params.id),
    );

    app.post(
      '/collection-submissions/:id/send',
      {
        config: { permission: 'apps:write' },
        schema: {
          tags,
          operationId: 'sendCollectionSubmission',
          summary: 'Mark a submission sent: its applicant has the link, and may be handed off',
          description:
            'Sending a sent submission again changes nothing. The first sending is audited collection.submission.sent.',
          params: SubmissionParams,
          response: { 200: Submission, ...errors('not_found') },
        },
      },
      async (request) => sendSubmission(contextOf(request), request.params.id),
    );

    app.get(
      '/collection-submissions/:id/status',
      {
        config: { applicant: true },
        schema: {
          tags,
          operationId: 'getCollectionSubmissionStatus',
          summary: 'The applicant’s view: the submission’s status, and whether a hand-off waits',
          description: 'Only the submission’s applicant, with the token of their link (403 for anyone else).',
          params: SubmissionParams,
          response: { 200: SubmissionStatusAnswer, ...errors('forbidden', 'not_found') },
        },
      },
      async (request) => submissionStatus(deps, applicantRequest(request, request.params.id)),
    );

    app.get(
      '/collection-submissions/:id/handoff',
      {
        config: { applicant: true },
        schema: {
          tags,
          operationId: 'handOffCollectionSubmission',
          summary: 'Hand the applicant off to the vendor’s hosted page of the session their run waits for',
          description:
            'Only the submission’s applicant, with the token of their link (403 for anyone else). Runs the app’s handoff with the return address /flow/<id> under the tenant’s collection.flowUrl (else COLLECTION_FLOW_URL); answers the vendor’s page, or null when the vendor has none (the run waits for its webhook). Audited collection.submission.handoff_started with the page’s host.',
          params: SubmissionParams,
          response: {
            200: HandoffAnswer,
            ...errors('forbidden', 'not_found', 'handoff_unavailable', 'handoff_failed'),
          },
        },
      },
      async (request) => handOff(deps, applicantRequest(request, request.params.id)),
    );

    app.post(
      '/collection-submissions/:id/link-requests',
      {
        // Public for the auth hook, which refuses expired tokens: the route verifies its own (below).
        config: { public: true },
        schema: {
          tags,
          operationId: 'requestCollectionLink',
          summary: 'The applicant, whose link expired, asks for a new one',
          description:
            'With the token of the expired link, verified but for its expiry (only the submission’s applicant; a link still valid is 409). Audited collection.submission.link_requested (the submission.link_requested webhook event), once per quarter of an hour per submission: the tenant’s collection flow sends the new link.',
          params: SubmissionParams,
          response: {
            202: LinkRequestAnswer,
            ...errors('unauthorized', 'forbidden', 'not_found', 'conflict'),
          },
        },
      },
      async (request, reply) =>
        reply
          .status(202)
          .send(
            await requestLink(
              { database: deps.database, verifier: deps.verifier },
              { token: bearerToken(request), submissionId: request.params.id, requestId: request.id },
            ),
          ),
    );

    app.post(
      '/collection-submissions/:id/drop-off-events',
      {
        config: { applicant: true },
        schema: {
          tags,
          operationId: 'reportCollectionDropOff',
          summary: 'The collection terminal reports the step at which the applicant left the flow',
          description:
            'Only the submission’s applicant, with the token of their link. One event per step: 201 when recorded, 200 with the first report when that step was reported before; 409 past 100 steps. Kept RETENTION_SUBMISSION_EVENT_DAYS (at least 90 days).',
          params: SubmissionParams,
          body: DropOffBody,
          response: {
            200: DropOffEvent,
            201: DropOffEvent,
            ...errors('forbidden', 'not_found', 'conflict'),
          },
        },
      },
      async (request, reply) => {
        const reported = await reportDropOff(
          deps.database,
          principalOf(request),
          request.params.id,
          request.body.step,
        );
        return reply.status(reported.created ? 201 : 200).send(reported.event);
      },
    );
  };
}
