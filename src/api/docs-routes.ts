/** Serves the OpenAPI document of this service. */
import fs from 'node:fs';
import path from 'node:path';
import { Router } from 'express';
import { projectRoot } from '../internal/paths';
import { openApiDocument } from './openapi/document';

function packageVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

export function docsRoutes(): Router {
  const router = Router();
  const body = JSON.stringify(openApiDocument(packageVersion()));
  router.get('/docs/openapi.json', (_req, res) => {
    res.type('application/json').send(body);
  });
  return router;
}
