/**
 * The OpenAPI paths of declared operations (../operation.ts): parameters, request bodies and
 * answers are the JSON Schema of their zod schemas. Schemas given an `id` with `.meta({ id })` are
 * written once under components.schemas and referenced, as Splice's own document does for its
 * shared shapes.
 */
import { z } from 'zod';
import type { AnyOperation } from '../operation';

type JsonSchema = Record<string, unknown>;

/** A reference to a named schema of components.schemas, for the answers every operation shares. */
export const componentRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
type Paths = Record<string, Record<string, unknown>>;

/** The bounds zod gives every safe integer, which say nothing to a reader of the document. */
const SAFE_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

/** Leaves out what zod states that says nothing: safe-integer bounds, and "any key, any value" on an open object. */
function dropNoise(schema: JsonSchema): void {
  for (const key of ['minimum', 'maximum'] as const) {
    if (typeof schema[key] === 'number' && SAFE_BOUNDS.has(schema[key])) delete schema[key];
  }
  const empty = (v: unknown) => typeof v === 'object' && v !== null && Object.keys(v).length === 0;
  if (empty(schema.properties)) delete schema.properties;
  if (empty(schema.additionalProperties)) delete schema.additionalProperties;
  if (JSON.stringify(schema.propertyNames) === '{"type":"string"}') delete schema.propertyNames;
}

/** Named schemas met so far, shared by every operation of one document. */
export class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};

  /**
   * The JSON Schema of a zod schema as the document holds it: the input side (what a request sends,
   * or what an answer holds, without zod's defaults applied), with named schemas moved to components.
   */
  of(schema: z.ZodType): JsonSchema {
    const converted = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io: 'input',
      unrepresentable: 'any',
      reused: 'inline',
      override: ({ zodSchema, jsonSchema }) => {
        dropNoise(jsonSchema);
        // zod leaves out a default given in .meta() on the input side; a query parameter's default is documented that way.
        const meta = z.globalRegistry.get(zodSchema);
        if (meta?.default !== undefined) (jsonSchema as JsonSchema).default = meta.default;
      },
    }) as JsonSchema;
    const text = JSON.stringify(converted).replaceAll('"#/$defs/', '"#/components/schemas/');
    const { $schema: _dialect, $defs, ...rest } = JSON.parse(text) as JsonSchema & { $defs?: Record<string, JsonSchema> };
    for (const [name, definition] of Object.entries($defs ?? {})) {
      const known = this.schemas[name];
      if (known !== undefined && JSON.stringify(known) !== JSON.stringify(definition)) {
        throw new Error(`Two different schemas are named ${name}.`);
      }
      this.schemas[name] = definition;
    }
    return rest;
  }
}

function parametersOf(operation: AnyOperation, components: SchemaComponents): JsonSchema[] {
  const parameters: JsonSchema[] = [];
  const pathNames = [...operation.path.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1] as string);
  const declaredPath = operation.request?.params ? components.of(operation.request.params) : undefined;
  for (const name of pathNames) {
    const schema = (declaredPath?.properties as Record<string, JsonSchema> | undefined)?.[name] ?? { type: 'string' };
    const { description, ...rest } = schema;
    parameters.push({ name, in: 'path', required: true, schema: rest, ...(description ? { description } : {}) });
  }
  if (operation.request?.query) {
    const query = components.of(operation.request.query);
    const required = new Set((query.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, JsonSchema>)) {
      const { description, ...rest } = schema;
      parameters.push({ name, in: 'query', required: required.has(name), schema: rest, ...(description ? { description } : {}) });
    }
  }
  return parameters;
}

function operationObject(operation: AnyOperation, components: SchemaComponents): JsonSchema {
  const parameters = parametersOf(operation, components);
  const body = operation.request?.body;
  const responses = Object.fromEntries(
    Object.entries(operation.responses).map(([status, answer]) => {
      const content = {
        ...(answer.body ? { 'application/json': { schema: components.of(answer.body) } } : {}),
        ...answer.content,
      };
      return [
        status,
        {
          description: answer.description,
          ...(answer.headers ? { headers: answer.headers } : {}),
          ...(Object.keys(content).length > 0 ? { content } : {}),
        },
      ];
    }),
  );
  return {
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    ...(operation.deprecated ? { deprecated: true } : {}),
    ...(operation.bearerAuth ? { security: [{ bearerAuth: [] }] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body
      ? {
          requestBody: {
            required: true,
            content: { [operation.request?.bodyContentType ?? 'application/json']: { schema: components.of(body) } },
          },
        }
      : {}),
    responses,
  };
}

/** The paths object of these operations, each path under `prefix`. */
export function pathsOf(prefix: string, operations: readonly AnyOperation[], components: SchemaComponents): Paths {
  const paths: Paths = {};
  for (const operation of operations) {
    const path = `${prefix}${operation.path}`;
    const methods = (paths[path] ??= {});
    if (methods[operation.method] !== undefined) throw new Error(`${operation.method.toUpperCase()} ${path} is declared twice.`);
    methods[operation.method] = operationObject(operation, components);
  }
  return paths;
}
