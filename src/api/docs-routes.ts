/** Serves the OpenAPI document of this service. */
import fs from 'node:fs';
import path from 'node:path';
import { Router } from 'express';
import { projectRoot } from '../internal/paths';
import { docsOperations } from './docs-operation';
import { mountOperations } from './operation';
import { openApiDocument } from './openapi/document';

function packageVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

export function docsRoutes(): Router {
  return mountOperations(Router(), docsOperations, { body: JSON.stringify(openApiDocument(packageVersion())) });
}
