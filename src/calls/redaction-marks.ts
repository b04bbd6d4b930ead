// What a test call's answer shows was redacted (docs/calls.md "Test call"): the placeholders redaction
// writes in place of a secret, a credential derived from one, or a cached value ([secret:NAME],
// [auth:TYPE], [cache:NAME]), each with the parts of the answer it stands in. Read from the answer's
// text, so a module that writes such text itself shows here too; the values never appear. Pure.

export type MarkKind = 'secret' | 'auth' | 'cache';
export type MarkPlace = 'output' | 'externalId' | 'error' | 'logs';

export interface RedactionMark {
  placeholder: string;
  kind: MarkKind;
  name: string;
  in: MarkPlace[];
}

const PLACEHOLDER = /\[(secret|auth|cache):([^\]\s]{1,100})\]/g;
const PLACES: readonly MarkPlace[] = ['output', 'externalId', 'error', 'logs'];

interface AnswerText {
  output?: unknown;
  externalId?: string;
  error?: { message: string; details?: Record<string, unknown> };
  logs: readonly { message: string }[];
}

/** The text of each part of the answer a placeholder may stand in. */
function textsOf(answer: AnswerText): [MarkPlace, string][] {
  const texts: [MarkPlace, string][] = [];
  if (answer.output !== undefined) texts.push(['output', JSON.stringify(answer.output) ?? '']);
  if (answer.externalId !== undefined) texts.push(['externalId', answer.externalId]);
  if (answer.error)
    texts.push(['error', `${answer.error.message} ${JSON.stringify(answer.error.details ?? {})}`]);
  for (const log of answer.logs) texts.push(['logs', log.message]);
  return texts;
}

/** Each placeholder the answer holds once, by its text, with where it stands (in answer order). */
export function redactionMarksOf(answer: AnswerText): RedactionMark[] {
  const marks = new Map<string, RedactionMark>();
  for (const [place, text] of textsOf(answer)) {
    for (const [placeholder, kind, name] of text.matchAll(PLACEHOLDER)) {
      const mark = marks.get(placeholder as string) ?? {
        placeholder: placeholder as string,
        kind: kind as MarkKind,
        name: name as string,
        in: [],
      };
      if (!mark.in.includes(place)) mark.in.push(place);
      marks.set(mark.placeholder, mark);
    }
  }
  const order = (mark: RedactionMark) => mark.in.sort((a, b) => PLACES.indexOf(a) - PLACES.indexOf(b));
  return [...marks.values()]
    .map((mark) => ({ ...mark, in: order(mark) }))
    .sort((a, b) => a.placeholder.localeCompare(b.placeholder));
}
