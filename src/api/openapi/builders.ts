/** Small builders that keep the OpenAPI document readable. */

export type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const str = (description?: string): Schema => (description ? { type: 'string', description } : { type: 'string' });
export const dateTime = (description?: string): Schema => ({
  type: 'string',
  format: 'date-time',
  ...(description ? { description } : {}),
});
export const int64 = (description?: string): Schema => ({ type: 'integer', format: 'int64', ...(description ? { description } : {}) });
export const int32 = (description?: string): Schema => ({ type: 'integer', format: 'int32', ...(description ? { description } : {}) });
export const bool = (description?: string): Schema => ({ type: 'boolean', ...(description ? { description } : {}) });
export const array = (items: Schema, extra: Schema = {}): Schema => ({ type: 'array', items, ...extra });
export const nullable = (schema: Schema): Schema => ({ oneOf: [schema, { type: 'null' }] });
/** A decimal rendered with exactly 10 fractional digits. */
export const decimal = (description?: string): Schema => ({
  type: 'string',
  pattern: '^-?[0-9]+\\.[0-9]{10}$',
  ...(description ? { description } : {}),
});

/** An object whose `required` list is every property not named in `optional`. */
export function object(properties: Record<string, Schema>, optional: string[] = []): Schema {
  const required = Object.keys(properties).filter((k) => !optional.includes(k));
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

export const json = (schema: Schema, description = 'OK') => ({ description, content: { 'application/json': { schema } } });
export const jsonBody = (schema: Schema) => ({ required: true, content: { 'application/json': { schema } } });

export function queryParam(name: string, schema: Schema, required: boolean, description?: string) {
  return { name, in: 'query', required, schema, ...(description ? { description } : {}) };
}
export function pathParam(name: string, description?: string) {
  return { name, in: 'path', required: true, schema: { type: 'string' }, ...(description ? { description } : {}) };
}
