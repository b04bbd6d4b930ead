// Schemas of the collection submission routes (docs/handoff.md): bodies in, answers out.
import { Type } from 'typebox';
import { dateTime, nullable } from '../http/responses.ts';

export const SubmissionParams = Type.Object(
  { id: Type.String({ format: 'uuid', description: 'The submission’s id' }) },
  { additionalProperties: false },
);

const SubmissionStatus = Type.Union([Type.Literal('open'), Type.Literal('sent')], {
  description:
    'open: created, the applicant’s link not sent yet; sent: the applicant has it (hand-off may start)',
});

export const CreateSubmissionBody = Type.Object(
  {
    subjectId: Type.String({ minLength: 1, maxLength: 200, description: 'The subject; the run’s own' }),
    workflowRunId: Type.String({
      format: 'uuid',
      description: 'The run whose vendor sessions may hand the applicant off',
    }),
  },
  {
    additionalProperties: false,
    examples: [{ subjectId: 'applicant-42', workflowRunId: '0b7f9a52-7a55-4a4f-9d3e-2c7e1f0b9a11' }],
  },
);

export const Submission = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    subjectId: Type.String(),
    workflowRunId: Type.String({ format: 'uuid' }),
    status: SubmissionStatus,
    createdAt: dateTime(),
    createdBy: Type.String({ description: 'Who created it (the audit actor id)' }),
    sentAt: nullable(dateTime(), { description: 'When it was sent; null while open' }),
  },
  { additionalProperties: false, title: 'CollectionSubmission' },
);

export const SubmissionStatusAnswer = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    status: SubmissionStatus,
    handoff: Type.Boolean({
      description:
        'true while GET /collection-submissions/{id}/handoff would hand the applicant off: the submission is sent and its run waits for a vendor session whose version hands off, is not blocked, on an enabled install',
    }),
  },
  { additionalProperties: false, title: 'CollectionSubmissionStatus' },
);

export const HandoffAnswer = Type.Object(
  {
    handoff: nullable(
      Type.Object(
        {
          url: Type.String({
            maxLength: 4000,
            description: 'The vendor’s page: https on one of the install’s approved hosts',
          }),
          expiresAt: Type.String({ description: 'When the page stops answering (ISO 8601 with offset)' }),
        },
        { additionalProperties: false },
      ),
      { description: 'null: the vendor has no page for the applicant; the run waits for its webhook' },
    ),
  },
  { additionalProperties: false, title: 'Handoff' },
);

export const LinkRequestAnswer = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'The submission’s id' }),
    linkRequestedAt: dateTime(
      'When the request the tenant was told about (collection.submission.link_requested) was made: this one, or one in the quarter of an hour before',
    ),
  },
  { additionalProperties: false, title: 'CollectionLinkRequest' },
);

export const DropOffBody = Type.Object(
  {
    step: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'The flow’s step the applicant left at, as the collection terminal names it',
    }),
  },
  { additionalProperties: false, examples: [{ step: 'upload-id-document' }] },
);

export const DropOffEvent = Type.Object(
  {
    submissionId: Type.String({ format: 'uuid' }),
    step: Type.String(),
    reportedAt: dateTime('When the drop-off at this step was first reported'),
  },
  { additionalProperties: false, title: 'CollectionDropOffEvent' },
);
