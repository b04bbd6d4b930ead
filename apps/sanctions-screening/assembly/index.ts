// sanctions-screening: screens a person or a company against an OpenSanctions-compatible match API.
//   POST {baseUrl}/match/{dataset}   Authorization: ApiKey <API_KEY>
//   { "queries": { "q1": { "schema": "Person" | "Company", "properties": { "name": [...], ... } } } }
// answers { "responses": { "q1": { "results": [...], "total": { "value": n } } } }.
import {
  Actions,
  Answer,
  error,
  HttpRequest,
  InvokeRequest,
  ok,
  runInvoke,
  sendManifest,
  Value,
  failureOf,
} from '@apps-platform/app-sdk';
import { MANIFEST } from './manifest';


const VENDOR = 'the match API';
const QUERY = 'q1';
const DEFAULT_DATASET = 'default';
const DEFAULT_THRESHOLD: f64 = 0.7;

export function manifest(): i32 {
  return sendManifest(MANIFEST);
}

/** Adds properties[name] = [value] when the input holds a non-empty text at field. */
function property(properties: Value, name: string, input: Value, field: string): void {
  const text = input.getString(field).trim();
  if (text.length > 0) properties.set(name, Value.array().push(Value.string(text)));
}

/** The match query of the input: FollowTheMoney schema Person or Company and its properties. */
function queryOf(input: Value): Value {
  const person = input.getString('entityType') == 'person';
  const properties = Value.object();
  property(properties, 'name', input, 'name');
  property(properties, 'country', input, 'country');
  if (person) {
    property(properties, 'birthDate', input, 'birthDate');
    property(properties, 'nationality', input, 'nationality');
    property(properties, 'idNumber', input, 'registrationNumber');
  } else {
    property(properties, 'incorporationDate', input, 'birthDate');
    property(properties, 'jurisdiction', input, 'nationality');
    property(properties, 'registrationNumber', input, 'registrationNumber');
  }
  return Value.object()
    .setString('schema', person ? 'Person' : 'Company')
    .set('properties', properties);
}

function baseUrlOf(config: Value): string {
  let url = config.getString('baseUrl');
  while (url.endsWith('/')) url = url.substring(0, url.length - 1);
  return url;
}

function thresholdOf(config: Value): f64 {
  const v = config.get('threshold');
  if (v === null || !v.isNumber()) return DEFAULT_THRESHOLD;
  const t = v.asNumber();
  return t < 0 ? 0 : t > 1 ? 1 : t;
}

/** One result as the output lists it; null when it is not a result object. */
function matchOf(result: Value): Value | null {
  if (!result.isObject()) return null;
  const datasets = Value.array();
  const given = result.getArray('datasets');
  if (given !== null) {
    for (let k = 0; k < given.length; k++) if (given.at(k).isString()) datasets.push(given.at(k));
  }
  return Value.object()
    .setString('id', result.getString('id'))
    .setString('caption', result.getString('caption'))
    .setString('schema', result.getString('schema'))
    .setNumber('score', result.getNumber('score', 0))
    .setBool('match', result.getBool('match'))
    .set('datasets', datasets);
}

/** responses.q1 of the vendor's answer when it holds a results array, else null. */
function queryAnswer(answer: Value | null): Value | null {
  if (answer === null) return null;
  const responses = answer.getObject('responses');
  if (responses === null) return null;
  const query = responses.getObject(QUERY);
  if (query === null || query.getArray('results') === null) return null;
  return query;
}

/** total.value (or a plain integer total); else the number of results. */
function totalOf(query: Value, fallback: i64): i64 {
  const total = query.get('total');
  if (total === null) return fallback;
  let value: Value | null = total;
  if (total.isObject()) value = total.get('value');
  if (value !== null && value.isInteger() && value.asInteger() >= 0) return value.asInteger();
  return fallback;
}

function screen(request: InvokeRequest): Answer {
  const input = request.input;
  const entityType = input.getString('entityType');
  if (entityType != 'person' && entityType != 'company') return error('entityType must be person or company');
  if (input.getString('name').trim().length == 0) return error('name must not be empty');
  const baseUrl = baseUrlOf(request.config);
  if (baseUrl.length == 0) return error('the install has no baseUrl: set the match API address in config');
  const dataset = request.config.getString('dataset', DEFAULT_DATASET);

  const body = Value.object().set('queries', Value.object().set(QUERY, queryOf(input)));
  const response = HttpRequest.post(baseUrl + '/match/' + encodeURIComponent(dataset))
    .header('authorization', 'ApiKey ' + request.call.secret('API_KEY'))
    .header('accept', 'application/json')
    .json(body)
    .timeout(15000)
    .send();
  const failure = failureOf(response, VENDOR, true);
  if (failure !== null) return failure;

  const query = queryAnswer(response.json());
  if (query === null) {
    return error(
      VENDOR + ' answered ' + response.status.toString() + ' without responses.' + QUERY + '.results',
    );
  }
  const results = query.getArray('results')!;

  const threshold = thresholdOf(request.config);
  const matches = Value.array();
  let hit = false;
  for (let k = 0; k < results.length; k++) {
    const m = matchOf(results.at(k));
    if (m === null) continue;
    if (m.getBool('match') || m.getNumber('score') >= threshold) hit = true;
    matches.push(m);
  }
  const total = totalOf(query, matches.length);
  return ok(Value.object().setBool('hit', hit).set('matches', matches).setInteger('total', total));
}

const ACTIONS = new Actions().on('screen', screen);

export function invoke(): i32 {
  return runInvoke(ACTIONS);
}
