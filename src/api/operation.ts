/**
 * One declaration per operation: its method and path, the zod schemas of its input and of its answers
 * per status, and its handler. The Express routes (mountOperations) and the OpenAPI document
 * (openapi/from-operations.ts) are both derived from it, so that neither can drift from the other.
 *
 * Declarations are module-level constants, so that the document is built without a running service.
 * What a handler needs at run time (the database, configuration, caches built once per router) is
 * its router's services `S`, given to mountOperations and passed to every handler and `before`.
 */
import type { Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import { parseInput } from './validation';

type Method = 'get' | 'post' | 'put' | 'delete';

/** One answer of an operation, as the OpenAPI document describes it. */
export interface ResponseDeclaration {
  description: string;
  /** The JSON body's schema. Absent with `content` (a body that is not JSON) or for an answer without a body. */
  body?: z.ZodType;
  /** A body in another media type, as OpenAPI media type objects (for example text/csv). */
  content?: Record<string, { schema: Record<string, unknown> }>;
  headers?: Record<string, { description: string; schema: Record<string, unknown> }>;
}

/** The request's parts after parsing: what the handler works with. */
interface ParsedInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

export interface OperationDeclaration<S, P = Record<string, string>, Q = unknown, B = unknown> {
  method: Method;
  /** The OpenAPI path relative to the router's mount point, with `{name}` path parameters. */
  path: string;
  summary: string;
  description?: string;
  deprecated?: boolean;
  /** Needs a bearer token (the scan-proxy, the Ledger API). */
  bearerAuth?: boolean;
  request?: {
    /** Path parameters; each is a string when not declared. */
    params?: z.ZodType<P>;
    query?: z.ZodType<Q>;
    body?: z.ZodType<B>;
    /**
     * Who parses the body: the declaration (default), or the handler itself with `request.body`, for
     * operations whose input needs checking in a particular order against other rules (the Ledger
     * API checks read rights before the body's fields) or whose errors have their own shape.
     */
    bodyParsedBy?: 'declaration' | 'handler';
    /** Extra OpenAPI request body fields, such as an example or a media type other than JSON. */
    bodyContentType?: string;
  };
  responses: Record<string, ResponseDeclaration>;
  /** Middleware run before the input is parsed: authentication, a body parser of its own, bounds. */
  before?: (services: S) => RequestHandler[];
  handle: (services: S, input: ParsedInput<P, Q, B>, req: Request, res: Response) => unknown;
}

/** Identity, so that each declaration's handler is typed by its schemas. */
export function operation<S, P = Record<string, string>, Q = unknown, B = unknown>(
  declaration: OperationDeclaration<S, P, Q, B>,
): OperationDeclaration<S, P, Q, B> {
  return declaration;
}

/** A router's declarations, whatever their input types, as lists of them hold them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type OperationOf<S> = OperationDeclaration<S, any, any, any>;
/** Any declaration, for the document, which reads no handler. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOperation = OperationOf<any>;

/** `/v0/x/{id}` as Express writes it: `/v0/x/:id`. */
function expressPath(openApiPath: string): string {
  return openApiPath.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
}

function handlerOf<S>(declaration: OperationOf<S>, services: S): RequestHandler {
  const { request } = declaration;
  return async (req, res) => {
    const input: ParsedInput<unknown, unknown, unknown> = {
      params: request?.params ? (parseInput(request.params, req.params, 'path') as unknown) : req.params,
      query: request?.query ? (parseInput(request.query, req.query, 'query') as unknown) : req.query,
      body: request?.body && request.bodyParsedBy !== 'handler' ? (parseInput(request.body, req.body, 'body') as unknown) : req.body,
    };
    await declaration.handle(services, input, req, res);
  };
}

/** Adds each declared operation to the router, in the order given (the order a request walks them). */
export function mountOperations<S>(router: Router, declarations: readonly OperationOf<S>[], services: S): Router {
  for (const declaration of declarations) {
    const before = declaration.before?.(services) ?? [];
    router[declaration.method](expressPath(declaration.path), ...before, handlerOf(declaration, services));
  }
  return router;
}
