/** What the registry's operations share: the services their handlers run with, and their error answers. */
import type { Config } from '../../internal/config';
import type { Db } from '../../store/pool';
import type { AnswerCache } from '../answer-cache';
import type { ResponseDeclaration } from '../operation';
import { ErrorResponse } from '../schema-kit';

export interface RegistryServices {
  db: Db;
  config: Config;
  answers: AnswerCache;
}

/** The errors of the factory and choice-context operations. */
export const choiceContextFailures: Record<string, ResponseDeclaration> = {
  '400': { description: 'Bad request.', body: ErrorResponse },
  '404': { description: 'Not found.', body: ErrorResponse },
};
