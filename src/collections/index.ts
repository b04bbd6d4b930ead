// The collections' front door: what other layers use of collection submissions and the hand-off. Files
// outside src/collections import this file only, so its inside (rules, stores, the hand-off's steps) can
// move behind it. src/db/schema.ts alone reads tables.ts directly (through this file it would close an
// import circle).

// The api: the routes of submissions, their status and the hand-off.

export { collectionRoutes } from './collections-routes.ts';

// `platform token --applicant`: the submission an applicant token is minted for must exist.

export { findSubmission } from './submissions-store.ts';

// The retention sweep (src/retention): the terminal's drop-off events it deletes.

export { collectionDropOffEvents } from './tables.ts';
