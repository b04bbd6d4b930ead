// Reading the model's answer: JSON only (code fences stripped, surrounding prose tolerated), checked
// field by field against the summarize output schema. The note returned is rebuilt from the checked
// fields, so nothing else the model wrote reaches the output.
import { JSON, Value } from '@apps-platform/app-sdk';

const MAX_SUMMARY = 4000;
const MAX_FACTORS = 20;
const MAX_FACTOR = 500;
const RISK_LEVELS = ['low', 'medium', 'high'];
const ACTIONS = ['approve', 'review', 'decline'];

/** The checked note, or why the answer is not one. */
export class NoteResult {
  note: Value | null = null;
  problem: string = '';

  static of(note: Value): NoteResult {
    const r = new NoteResult();
    r.note = note;
    return r;
  }

  static bad(problem: string): NoteResult {
    const r = new NoteResult();
    r.problem = problem;
    return r;
  }
}

/** The text inside a ``` fence (with or without a language tag), else the text. */
export function stripFences(content: string): string {
  let text = content.trim();
  if (!text.startsWith('```')) return text;
  const lineEnd = text.indexOf('\n');
  text = lineEnd < 0 ? text.substring(3) : text.substring(lineEnd + 1);
  const close = text.lastIndexOf('```');
  if (close >= 0) text = text.substring(0, close);
  return text.trim();
}

/** The content as a JSON object: as it is, without fences, or the outermost {...} it holds. */
export function parseContent(content: string): Value | null {
  const text = stripFences(content);
  const whole = JSON.parse(text);
  if (whole !== null) return whole;
  const open = text.indexOf('{');
  const close = text.lastIndexOf('}');
  if (open < 0 || close <= open) return null;
  return JSON.parse(text.substring(open, close + 1));
}

function oneOf(value: Value, field: string, allowed: Array<string>): string | null {
  const v = value.get(field);
  if (v === null || !v.isString()) return null;
  const text = v.asString().trim().toLowerCase();
  return allowed.includes(text) ? text : null;
}

/** Checks the model's content; the note holds exactly riskLevel, summary, factors and recommendedAction. */
export function readNote(content: string): NoteResult {
  const parsed = parseContent(content);
  if (parsed === null) return NoteResult.bad('the answer is not JSON');
  if (!parsed.isObject()) return NoteResult.bad('the answer is not a JSON object');

  const riskLevel = oneOf(parsed, 'riskLevel', RISK_LEVELS);
  if (riskLevel === null) return NoteResult.bad('riskLevel is not one of low, medium, high');
  const action = oneOf(parsed, 'recommendedAction', ACTIONS);
  if (action === null) return NoteResult.bad('recommendedAction is not one of approve, review, decline');

  const summaryValue = parsed.get('summary');
  if (summaryValue === null || !summaryValue.isString() || summaryValue.asString().trim().length == 0) {
    return NoteResult.bad('summary is not a non-empty text');
  }
  let summary = summaryValue.asString().trim();
  if (summary.length > MAX_SUMMARY) summary = summary.substring(0, MAX_SUMMARY - 1) + '…';

  const given = parsed.getArray('factors');
  if (given === null) return NoteResult.bad('factors is not an array');
  if (given.length > MAX_FACTORS)
    return NoteResult.bad('factors has more than ' + MAX_FACTORS.toString() + ' items');
  const factors = Value.array();
  for (let k = 0; k < given.length; k++) {
    const item = given.at(k);
    const where = 'factors/' + k.toString();
    if (!item.isObject()) return NoteResult.bad(where + ' is not an object');
    const factor = item.get('factor');
    if (factor === null || !factor.isString() || factor.asString().trim().length == 0) {
      return NoteResult.bad(where + '/factor is not a non-empty text');
    }
    const weight = item.get('weight');
    if (weight === null || !weight.isNumber()) return NoteResult.bad(where + '/weight is not a number');
    const w = weight.asNumber();
    if (!(w >= 0 && w <= 1)) return NoteResult.bad(where + '/weight is not between 0 and 1');
    let text = factor.asString().trim();
    if (text.length > MAX_FACTOR) text = text.substring(0, MAX_FACTOR - 1) + '…';
    factors.push(Value.object().setString('factor', text).setNumber('weight', w));
  }
  return NoteResult.of(
    Value.object()
      .setString('riskLevel', riskLevel)
      .setString('summary', summary)
      .set('factors', factors)
      .setString('recommendedAction', action),
  );
}
