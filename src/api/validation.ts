/**
 * Parsing of request input with zod, turning the first problem into one clear
 * 400 message for the client.
 */
import type { z } from 'zod';
import { badRequest } from '../internal/errors';

function describe(issue: z.core.$ZodIssue, where: string): string {
  const path = issue.path.map(String).join('.');
  if (issue.code === 'invalid_type' && issue.input === undefined) {
    return path ? `Missing required ${where} field '${path}'.` : `Missing ${where}.`;
  }
  if (issue.code === 'unrecognized_keys') {
    return `Unknown ${where} field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}.`;
  }
  return path ? `Invalid ${where} field '${path}': ${issue.message}.` : `Invalid ${where}: ${issue.message}.`;
}

export function parseInput<S extends z.ZodType>(schema: S, input: unknown, where: 'body' | 'query' | 'path'): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw badRequest(issue ? describe(issue, where) : `Invalid ${where}.`);
  }
  return result.data;
}
