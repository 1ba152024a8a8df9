/**
 * Readers for upstream JSON whose shape is not trusted. Each names the path
 * of the offending field, so a source can stop with an error that says
 * exactly what is wrong with which item.
 */
import type { Json } from '../../domain/json';
import { tryParseTimestamp, type Micros } from '../../domain/time';

export class ShapeError extends Error {
  constructor(
    readonly path: string,
    expected: string,
    actual: unknown,
  ) {
    super(`${path}: expected ${expected}, got ${preview(actual)}`);
    this.name = 'ShapeError';
  }
}

function preview(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

export type JsonObject = { [key: string]: unknown };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function object(value: unknown, path: string): JsonObject {
  if (!isObject(value)) throw new ShapeError(path, 'an object', value);
  return value;
}

export function objectField(o: JsonObject, key: string, path: string): JsonObject {
  return object(o[key], `${path}.${key}`);
}

export function string(o: JsonObject, key: string, path: string): string {
  const v = o[key];
  if (typeof v !== 'string') throw new ShapeError(`${path}.${key}`, 'a string', v);
  return v;
}

/** A string, with null and absence read as null (the JSON API prints absent optionals as null). */
export function optionalString(o: JsonObject, key: string, path: string): string | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new ShapeError(`${path}.${key}`, 'a string or null', v);
  return v;
}

export function integer(o: JsonObject, key: string, path: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new ShapeError(`${path}.${key}`, 'an integer', v);
  return v;
}

export function boolean(o: JsonObject, key: string, path: string): boolean {
  const v = o[key];
  if (typeof v !== 'boolean') throw new ShapeError(`${path}.${key}`, 'true or false', v);
  return v;
}

export function array(o: JsonObject, key: string, path: string): unknown[] {
  const v = o[key];
  if (!Array.isArray(v)) throw new ShapeError(`${path}.${key}`, 'an array', v);
  return v;
}

export function stringArray(o: JsonObject, key: string, path: string): string[] {
  const v = array(o, key, path);
  v.forEach((x, i) => {
    if (typeof x !== 'string') throw new ShapeError(`${path}.${key}[${i}]`, 'a string', x);
  });
  return v as string[];
}

/** A present JSON value (a Daml value is any JSON, null included, but never absent). */
export function json(o: JsonObject, key: string, path: string): Json {
  const v = o[key];
  if (v === undefined) throw new ShapeError(`${path}.${key}`, 'a JSON value', v);
  return v as Json;
}

export function timestamp(o: JsonObject, key: string, path: string): Micros {
  const v = string(o, key, path);
  const t = tryParseTimestamp(v);
  if (t === undefined) throw new ShapeError(`${path}.${key}`, 'an ISO 8601 timestamp', v);
  return t;
}
