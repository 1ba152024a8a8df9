/**
 * Parsing of request input with zod, turning the first problem into one clear
 * 400 message for the client.
 */
import type { z } from 'zod';
import { badRequest } from '../internal/errors';

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function describe(issue: z.core.$ZodIssue, input: unknown, where: string): string {
  const path = issue.path.map(String).join('.');
  if (issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined) {
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
    throw badRequest(issue ? describe(issue, input, where) : `Invalid ${where}.`);
  }
  return result.data;
}
