// Schemas of the documents routes (docs/documents.md): parameters in, documents out.
import { Type } from 'typebox';
import { pageOf, pageQuery } from '../http/paging.ts';
import { dateTime, nullable } from '../http/responses.ts';
import { C0_CONTROLS, UNSAFE_BEYOND_C0 } from '../unsafe-characters.ts';
import { ACCEPTED_CONTENT_TYPES } from './check-rules.ts';

/** The most bytes one document holds (and the upload's body limit): 8 MiB, as a vendor's answer to a call. */
export const MAX_DOCUMENT_BYTES = 8 * 1024 * 1024;

export const SubjectParams = Type.Object({
  subjectId: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'The subject as the tenant names it (as a run’s subjectId), 1 to 200 characters',
  }),
});

export const DocumentParams = Type.Object({
  ...SubjectParams.properties,
  id: Type.String({ format: 'uuid' }),
});

/**
 * What a file name may not hold, as a character class: slashes (a name, not a path), and the controls and
 * reordering marks `ops` escapes (src/unsafe-characters.ts): `invoice\u202Etxt.exe` would show as
 * `invoiceexe.txt` and save as `.exe`.
 */
const NAME_REFUSED = `${C0_CONTROLS}${UNSAFE_BEYOND_C0}/\\\\`;

export const UploadQuery = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: `^[^${NAME_REFUSED}]+$`,
      description:
        'The document’s file name, 1 to 255 characters without slashes, control characters or bidirectional marks, embeddings, overrides and isolates',
      examples: ['passport.pdf'],
    }),
  },
  { additionalProperties: false },
);

// Spelled out (TypeBox keeps a literal's type only when written), as check-rules.ts's DOCUMENT_STATUSES
// and REJECTION_REASONS; the rule's tests hold the two lists together.
const Status = Type.Union([Type.Literal('pending'), Type.Literal('clean'), Type.Literal('rejected')], {
  description: 'pending: not checked yet; clean: app calls may read it; rejected: the check refused it',
});

export const ListQuery = Type.Object(
  { ...pageQuery(), status: Type.Optional(Status) },
  { additionalProperties: false },
);

export const Document = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    subjectId: Type.String(),
    name: Type.String(),
    contentType: Type.String({ description: `One of ${ACCEPTED_CONTENT_TYPES.join(', ')}` }),
    size: Type.Integer({ minimum: 0, description: 'Bytes' }),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
    status: Status,
    reason: nullable(
      Type.Union([
        Type.Literal('empty'),
        Type.Literal('executable'),
        Type.Literal('archive'),
        Type.Literal('type_mismatch'),
        Type.Literal('invalid_text'),
        Type.Literal('missing'),
      ]),
      { description: 'Why the check rejected the document (docs/documents.md); null unless rejected' },
    ),
    createdAt: dateTime(),
    checkedAt: nullable(dateTime(), { description: 'When the check decided; null while pending' }),
    createdBy: Type.String({ description: 'The uploading principal' }),
  },
  {
    additionalProperties: false,
    title: 'Document',
    examples: [
      {
        id: '5f0c6a3e-8d1b-4a8e-9a57-0c1f3b2d4e6f',
        subjectId: 'applicant-42',
        name: 'passport.pdf',
        contentType: 'application/pdf',
        size: 48213,
        sha256: 'a'.repeat(64),
        status: 'clean',
        reason: null,
        createdAt: '2026-11-25T10:00:00.000Z',
        checkedAt: '2026-11-25T10:00:00.120Z',
        createdBy: 'user:ada',
      },
    ],
  },
);

export const DocumentList = pageOf(Document);

/** A document's bytes, as the upload takes them and the content route answers them. */
export const DocumentBytes = Type.String({ format: 'binary', description: 'The document’s bytes' });

/** The content route's answer: the bytes under the document's own type (sent as a Buffer, never serialized). */
export const DocumentContent = Type.Unsafe<Buffer>({
  description: 'The bytes, with the document’s Content-Type',
  content: Object.fromEntries(ACCEPTED_CONTENT_TYPES.map((type) => [type, { schema: DocumentBytes }])),
});
