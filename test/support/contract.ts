// The API's own description as a validator: every answer a test receives is checked against
// /openapi.json — the operation's documented statuses, its content type and its schema — by Ajv (JSON
// Schema 2020-12, the dialect of OpenAPI 3.1) with the document added as one schema, so its
// `#/components/schemas/...` references resolve as they stand. Strict: an undocumented status, an
// undocumented body or a body that breaks its schema is a mismatch.
import type { ValidateFunction } from 'ajv';
import { createSchemaAjv } from '../../src/module/schemas.ts';

const DOCUMENT_ID = 'urn:apps-platform:openapi';
/** Answers outside the description by design: the description itself and its reference page. */
const UNDESCRIBED = [/^\/openapi\.json$/, /^\/docs(\/|$)/];

interface MediaType {
  schema?: unknown;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
}
interface Operation {
  responses?: Record<string, ResponseObject>;
}
export type OpenApiDocument = {
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown> };
};

/** What a test received: enough of it to check against the description. */
export interface Answer {
  method: string;
  pathname: string;
  status: number;
  contentType: string | null;
  text: string;
}

export interface Contract {
  /** The mismatches between an answer and the description; empty when it keeps the contract. */
  check(answer: Answer): string[];
}

interface Template {
  path: string;
  pattern: RegExp;
  literals: number;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pointerOf = (...tokens: string[]) =>
  `#/${tokens.map((t) => t.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

function templateOf(path: string): Template {
  const segments = path.split('/');
  const pattern = segments.map((s) => (/^\{[^}]+\}$/.test(s) ? '[^/]+' : escapeRegExp(s))).join('/');
  return {
    path,
    pattern: new RegExp(`^${pattern}$`),
    literals: segments.filter((s) => !s.startsWith('{')).length,
  };
}

/** Compiles the description into a contract; answers are checked without further I/O. */
export function compileContract(document: OpenApiDocument): Contract {
  const ajv = createSchemaAjv({ allErrors: true, validateSchema: false });
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const validators = new Map<string, ValidateFunction>();
  const validatorAt = (pointer: string): ValidateFunction => {
    const known = validators.get(pointer);
    if (known) return known;
    const validate = ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
    validators.set(pointer, validate);
    return validate;
  };
  // A literal segment beats a parameter (/app-installs/metering before /app-installs/{install}).
  const templates = Object.keys(document.paths ?? {})
    .map(templateOf)
    .sort((a, b) => b.literals - a.literals);
  const errorBody = pointerOf('components', 'schemas', 'ErrorBody');

  return {
    check(answer) {
      if (UNDESCRIBED.some((pattern) => pattern.test(answer.pathname))) return [];
      const where = `${answer.method} ${answer.pathname} answered ${answer.status}`;
      const template = templates.find((t) => t.pattern.test(answer.pathname));
      const method = answer.method.toLowerCase() === 'head' ? 'get' : answer.method.toLowerCase();
      const operation = template ? document.paths?.[template.path]?.[method] : undefined;
      if (!template || !operation) {
        // OPTIONS on a known path answers 204 with Allow and nothing else (docs/api-conventions.md, Methods).
        if (answer.method === 'OPTIONS' && template && answer.status === 204)
          return answer.text === '' ? [] : [`${where}: an OPTIONS answer carries no body`];
        // No route: 404, 405, or a URL Fastify cannot decode (400); an error, but still the error body.
        if (answer.status < 400) return [`${where}: no operation describes it`];
        return checkJson(answer, validatorAt(errorBody), where);
      }
      const status = String(answer.status);
      const response = operation.responses?.[status];
      if (!response) {
        const documented = Object.keys(operation.responses ?? {}).join(', ');
        return [`${where}: ${method.toUpperCase()} ${template.path} documents only ${documented}`];
      }
      const media = Object.keys(response.content ?? {});
      if (media.length === 0 || answer.method === 'HEAD') {
        return answer.text === '' || answer.method === 'HEAD' ? [] : [`${where}: documents no body, got one`];
      }
      const type = answer.contentType?.split(';')[0]?.trim() ?? '';
      if (!media.includes(type))
        return [`${where}: content type ${type || 'none'} is not ${media.join(' or ')}`];
      if (type !== 'application/json') return [];
      const pointer = pointerOf(
        'paths',
        template.path,
        method,
        'responses',
        status,
        'content',
        type,
        'schema',
      );
      return checkJson(answer, validatorAt(pointer), `${where} (${template.path})`);
    },
  };
}

function checkJson(answer: Answer, validate: ValidateFunction, where: string): string[] {
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return [`${where}: body is not JSON: ${answer.text.slice(0, 200)}`];
  }
  if (validate(body)) return [];
  return (validate.errors ?? []).map(
    (e) => `${where}: body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`,
  );
}

/** Contracts compiled in this process, by the text of their description (test files may share a process). */
const compiled = new Map<string, Contract>();

/** The description a running api serves. */
export async function fetchContract(baseUrl: string): Promise<Contract> {
  const response = await fetch(`${baseUrl}/openapi.json`);
  if (response.status !== 200) throw new Error(`GET /openapi.json answered ${response.status}`);
  const text = await response.text();
  const known = compiled.get(text);
  if (known) return known;
  const contract = compileContract(JSON.parse(text) as OpenApiDocument);
  compiled.set(text, contract);
  return contract;
}

/** Checks a received answer (reading a clone, so the test still reads the body); throws on a mismatch. */
export async function expectContractKept(
  contract: Contract,
  method: string,
  response: Response,
): Promise<void> {
  const url = new URL(response.url);
  const problems = contract.check({
    method: method.toUpperCase(),
    pathname: url.pathname,
    status: response.status,
    contentType: response.headers.get('content-type'),
    text: await response.clone().text(),
  });
  if (problems.length > 0) throw new Error(`the answer breaks /openapi.json:\n${problems.join('\n')}`);
}
