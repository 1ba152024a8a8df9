/**
 * The web UI: one page at / and its assets under /ui/, built by `npm run build` (src/web). The
 * page reads only the public endpoints, like any client; nothing here queries the database.
 */
import fs from 'node:fs';
import path from 'node:path';
import express, { Router } from 'express';
import { HttpError } from '../internal/errors';
import { mountOperations, operation, type OperationOf } from './operation';
import { ErrorResponse } from './schema-kit';

/** The page may run its own script and style and call this origin; nothing else, and it is never framed. */
const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

interface WebUiServices {
  /** The built page, index.html. */
  page: string;
  /** Sets the page's content security policy. */
  policy: express.RequestHandler;
}

export const webUiOperations: readonly OperationOf<WebUiServices>[] = [
  operation({
    method: 'get',
    path: '/',
    summary: 'The web UI (when WEB_UI_ENABLED): one HTML page whose script reads the public endpoints; its assets are under /ui/.',
    responses: {
      '200': { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } },
      '404': { description: 'The UI was not built (`npm run build` writes dist/web).', body: ErrorResponse },
    },
    before: ({ policy }: WebUiServices) => [policy],
    handle: ({ page }: WebUiServices, _input, _req, res) => {
      if (!fs.existsSync(page)) throw new HttpError(404, 'The web UI is not built here: run `npm run build`, which writes dist/web.');
      // Revalidated on every load: asset names carry no version, so a cached page must not outlive an upgrade.
      res.setHeader('cache-control', 'no-cache');
      res.sendFile(page);
    },
  }),
];

export function webUiRoutes(dir: string): Router {
  const router = Router();
  const page = path.join(dir, 'index.html');
  const policy: express.RequestHandler = (_req, res, next) => {
    res.setHeader('content-security-policy', PAGE_POLICY);
    next();
  };

  mountOperations(router, webUiOperations, { page, policy });
  router.use(
    '/ui',
    policy,
    express.static(path.join(dir, 'ui'), {
      index: false,
      fallthrough: true,
      setHeaders: (res) => res.setHeader('cache-control', 'no-cache'),
    }),
  );
  return router;
}
