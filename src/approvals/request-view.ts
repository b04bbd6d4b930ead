// What an answered approval request shows of who asked and who decided: the same fields for a publish
// request and a definition approval (an install change names them its own way: docs/install-changes.md).
export interface RequestRow {
  fourEyes: boolean;
  requestedBy: string;
  requestedByName: string | null;
  requestedAt: Date;
  decidedBy: string | null;
  decidedAt: Date | null;
  comment: string | null;
}

/** The request's asking and deciding, with ISO timestamps. */
export const requestFields = (row: RequestRow) => ({
  fourEyes: row.fourEyes,
  requestedBy: row.requestedBy,
  requestedByName: row.requestedByName,
  requestedAt: row.requestedAt.toISOString(),
  decidedBy: row.decidedBy,
  decidedAt: row.decidedAt?.toISOString() ?? null,
  comment: row.comment,
});
