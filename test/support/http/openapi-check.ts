/**
 * Every response a test gets from the server, checked against the served OpenAPI document
 * (src/api/openapi/document.ts; issue #28): the operation is found by method and path template
 * (`/v0/foo/{id}` matches `/v0/foo/abc`), the response by status (exact, then `4XX`, then
 * `default`), and a JSON body is validated by its schema (OpenAPI 3.1: JSON Schema 2020-12).
 *
 * What is not checked: a path the document does not list (static files, routes a test mounts
 * itself), a method the document does not list on a path (nothing to check it against), HEAD, and
 * the schema of a body that is not JSON (empty, text, HTML). A status the document does not declare
 * for an operation it does list is a mismatch, as is a JSON body where it declares none.
 */
import fs from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../../src/api/openapi/document';
import { projectRoot } from '../../../src/internal/paths';

/** One answer of the server, as a test saw it. */
export interface Answer {
  method: string;
  /** The path asked for, with its query if any. */
  path: string;
  status: number;
  contentType: string | null;
  text: string;
}

interface MediaType {
  schema?: unknown;
}
interface ResponseObject {
  description?: string;
  content?: Record<string, MediaType>;
  /** A response of components.responses: `#/components/responses/<name>`. */
  $ref?: string;
}
interface OperationObject {
  responses?: Record<string, ResponseObject>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components?: { responses?: Record<string, ResponseObject> };
}

/** A response the document does not describe. */
export class ResponseMismatch extends Error {
  override name = 'ResponseMismatch';
}

const BODY_PREFIX = 600;

interface Template {
  path: string;
  pattern: RegExp;
  params: number;
}

function templateOf(p: string): Template {
  const parts = p.split(/(\{[^}]+\})/);
  const source = parts.map((part) => (/^\{[^}]+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return { path: p, pattern: new RegExp(`^${source}$`), params: parts.filter((part) => /^\{[^}]+\}$/.test(part)).length };
}

/** A JSON pointer into the document, written as a URI fragment. */
function pointer(...segments: string[]): string {
  return segments.map((s) => `/${encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('');
}

function isJson(contentType: string | null): boolean {
  return contentType !== null && /^application\/([\w.-]+\+)?json\b/i.test(contentType.trim());
}

/** The document's integer formats, which JSON Schema leaves to the application. */
function addOpenApiFormats(ajv: Ajv2020): void {
  ajv.addFormat('int8', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -128 && n < 128 });
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
}

/**
 * A check of answers against `document`; it throws a ResponseMismatch naming the operation, the
 * status, what does not match and the start of the body.
 */
export function responseChecker(document: OpenApiDocument): (answer: Answer) => void {
  const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true, logger: false });
  addFormats(ajv);
  addOpenApiFormats(ajv);
  // The document is added whole, so that `#/components/schemas/…` resolves; its own fields are not schema keywords.
  for (const keyword of ['example', 'openapi', 'info', 'servers', 'paths', 'components', 'security', 'tags', 'externalDocs', 'webhooks'])
    ajv.addKeyword(keyword);
  const documentId = 'openapi.json';
  ajv.addSchema(document, documentId);

  // Literal paths before templates: /v0/events/latest-record-time is not /v0/events/{update_id}.
  const templates = Object.keys(document.paths)
    .map(templateOf)
    .sort((a, b) => a.params - b.params);
  const validators = new Map<string, ValidateFunction>();
  const validatorAt = (fragment: string): ValidateFunction => {
    let validate = validators.get(fragment);
    if (!validate) {
      validate = ajv.compile({ $ref: `${documentId}#${fragment}` });
      validators.set(fragment, validate);
    }
    return validate;
  };

  return (answer: Answer) => {
    const method = answer.method.toLowerCase();
    if (method === 'head') return;
    const pathOnly = answer.path.replace(/[?#].*$/s, '');
    const template = templates.find((t) => t.pattern.test(pathOnly));
    if (!template) return;
    const operation = document.paths[template.path]?.[method];
    if (!operation) return;
    const name = `${method.toUpperCase()} ${template.path}`;
    const fail = (what: string) => {
      const prefix = answer.text.length > BODY_PREFIX ? `${answer.text.slice(0, BODY_PREFIX)}…` : answer.text;
      return new ResponseMismatch(
        `The answer to ${answer.method.toUpperCase()} ${answer.path.slice(0, 300)} is not as the OpenAPI document says: operation ${name}, status ${answer.status}: ${what}\nbody (${answer.text.length} characters): ${prefix}`,
      );
    };

    const responses = operation.responses ?? {};
    const key = [String(answer.status), `${String(answer.status).charAt(0)}XX`, 'default'].find((k) => responses[k] !== undefined);
    if (key === undefined)
      throw fail(`the document declares no response with this status (it declares ${Object.keys(responses).join(', ')})`);
    if (!isJson(answer.contentType)) return;
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      return;
    }
    // The response, and where it is in the document: in the operation, or in components.responses.
    let response = responses[key]!;
    let at = ['paths', template.path, method, 'responses', key];
    const shared = /^#\/components\/responses\/([^/]+)$/.exec(response.$ref ?? '');
    if (response.$ref !== undefined) {
      const name = shared?.[1];
      const target = name === undefined ? undefined : document.components?.responses?.[name];
      if (name === undefined || target === undefined) throw fail(`its response ${response.$ref} is not in components.responses`);
      response = target;
      at = ['components', 'responses', name];
    }
    const content = response.content ?? {};
    const mediaType = Object.keys(content).find((m) => isJson(m));
    if (mediaType === undefined) {
      throw fail(`a JSON body (${answer.contentType}), where the document declares ${Object.keys(content).join(', ') || 'no body'}`);
    }
    if (content[mediaType]!.schema === undefined) return;
    const validate = validatorAt(pointer(...at, 'content', mediaType, 'schema'));
    if (!validate(body)) {
      throw fail(`the body does not match its schema: ${describe(validate.errors ?? [])}`);
    }
  };
}

function describe(errors: ErrorObject[]): string {
  const shown = errors.slice(0, 8).map((e) => `${e.instancePath || '(the body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  return shown.join('; ') + (errors.length > shown.length ? `; and ${errors.length - shown.length} more` : '');
}

let fromCode: ((answer: Answer) => void) | undefined;

/** The check against the document the server serves, built from the code once per process (test file). */
export function checkServedDocument(answer: Answer): void {
  if (!fromCode) {
    const pkg = JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version?: string };
    fromCode = responseChecker(openApiDocument(pkg.version ?? '0.0.0') as unknown as OpenApiDocument);
  }
  fromCode(answer);
}

/** Base URLs of this service's application started in this process (startTestApi). */
const inProcess = new Set<string>();
/** Other base URLs: the check against the document each serves, or undefined when it serves none. */
const probed = new Map<string, Promise<((answer: Answer) => void) | undefined>>();

export function servesThisApplication(baseUrl: string): void {
  inProcess.add(baseUrl);
}

/** The server at `baseUrl` closed: another may listen there later. */
export function forgetServer(baseUrl: string): void {
  inProcess.delete(baseUrl);
  probed.delete(baseUrl);
}

/**
 * The check of answers from `baseUrl`: against the document built from the code for an application
 * started by startTestApi; for any other server (a child process, an application a test builds and
 * listens on itself, a fake), against the document it serves at /docs/openapi.json, asked once; a
 * server that serves no scan-indexer document (a fake, a handler a test mounts alone) is not checked.
 */
export function checkerFor(baseUrl: string): Promise<((answer: Answer) => void) | undefined> {
  if (inProcess.has(baseUrl)) return Promise.resolve(checkServedDocument);
  let checker = probed.get(baseUrl);
  if (!checker) {
    checker = (async () => {
      try {
        const res = await fetch(`${baseUrl}/docs/openapi.json`, { signal: AbortSignal.timeout(60_000) });
        if (res.status !== 200) return undefined;
        const doc = (await res.json()) as Partial<OpenApiDocument> & { openapi?: unknown; info?: { title?: unknown } };
        return doc.openapi === '3.1.0' && doc.info?.title === 'scan-indexer' && doc.paths
          ? responseChecker(doc as OpenApiDocument)
          : undefined;
      } catch {
        return undefined;
      }
    })();
    probed.set(baseUrl, checker);
  }
  return checker;
}
