// Ids are UUIDs: a text that is not one names nothing (an unknown id answers 404, never a query error on a
// uuid column). Any case, as PostgreSQL reads them.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(text: string): boolean {
  return UUID.test(text);
}
