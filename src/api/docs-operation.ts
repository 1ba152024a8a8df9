/**
 * The declaration of GET /docs/openapi.json. It lives apart from ./docs-routes.ts, which builds the
 * document: the document lists this operation too, so the two would otherwise import each other.
 */
import { jsonObject } from './schema-kit';
import { operation, type OperationOf } from './operation';

interface DocsServices {
  /** The document, serialised once when the router is built. */
  body: string;
}

export const docsOperations: readonly OperationOf<DocsServices>[] = [
  operation({
    method: 'get',
    path: '/docs/openapi.json',
    summary: 'This document.',
    responses: { '200': { description: 'OK', body: jsonObject() } },
    handle: ({ body }: DocsServices, _input, _req, res) => {
      res.type('application/json').send(body);
    },
  }),
];
