/**
 * The layering rules (.dependency-cruiser.cjs, run by `npm run lint`) fire on
 * deliberate violations: a small tree that breaks each rule is checked with
 * the project's own configuration, and each break is reported by its rule.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../src/internal/paths';

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

function cruise(files: Record<string, string>): Violation[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-indexer-layers-'));
  try {
    fs.copyFileSync(path.join(projectRoot, '.dependency-cruiser.cjs'), path.join(dir, '.dependency-cruiser.cjs'));
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'commonjs', moduleResolution: 'node' } }),
    );
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    }
    let output: string;
    try {
      output = execFileSync(
        path.join(projectRoot, 'node_modules/.bin/depcruise'),
        ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
        {
          cwd: dir,
          encoding: 'utf8',
        },
      );
    } catch (err) {
      // depcruise exits non-zero when it finds violations; its report is on standard output all the same.
      output = (err as { stdout: string }).stdout;
    }
    return (JSON.parse(output) as { summary: { violations: Violation[] } }).summary.violations;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('layering rules', () => {
  it('report each deliberate violation by its rule', () => {
    const violations = cruise({
      'src/store/pool.ts': 'export const pool = 1;\n',
      'src/api/route.ts': "import { pool } from '../store/pool';\nexport const route = pool;\n",
      'src/domain/rule.ts': "import { pool } from '../store/pool';\nexport const rule = pool;\n",
      'src/store/reads-api.ts': "import { route } from '../api/route';\nexport const x = route;\n",
      'src/domain/reads-file.ts': "import fs from 'node:fs';\nexport const y = fs;\n",
      'src/internal/uses-domain.ts': "import { rule } from '../domain/rule';\nexport const z = rule;\n",
      'src/api/runs-ingest.ts': "import { w } from '../ingest/w';\nexport const v = w;\n",
      'src/ingest/w.ts': "import { u } from './u';\nexport const w = u;\n",
      'src/ingest/u.ts': "import { w } from './w';\nexport const u = () => w;\n",
      'src/web/view.ts': "import { pool } from '../store/pool';\nexport const view = pool;\n",
      'src/api/renders-web.ts': "import { view } from '../web/view';\nexport const page = view;\n",
    });
    const found = violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
    expect(found).toEqual(
      [
        'api-does-not-ingest: src/api/runs-ingest.ts → src/ingest/w.ts',
        'domain-is-pure: src/domain/reads-file.ts → fs',
        'domain-is-pure: src/domain/rule.ts → src/store/pool.ts',
        'internal-imports-no-layer: src/internal/uses-domain.ts → src/domain/rule.ts',
        // A cycle is reported once, at the edge that closes it.
        'no-cycles: src/ingest/u.ts → src/ingest/w.ts',
        'store-and-domain-below-api-and-ingest: src/store/reads-api.ts → src/api/route.ts',
        'web-is-a-client: src/web/view.ts → src/store/pool.ts',
        'server-does-not-import-web: src/api/renders-web.ts → src/web/view.ts',
      ].sort(),
    );
  });

  it('keep the planner from reaching SQL, by any chain of imports', () => {
    const violations = cruise({
      'node_modules/pg/package.json': '{ "name": "pg", "main": "index.js" }\n',
      'node_modules/pg/index.js': 'exports.Pool = class {};\n',
      'node_modules/kysely/package.json': '{ "name": "kysely", "main": "index.js" }\n',
      'node_modules/kysely/index.js': 'exports.sql = () => 1;\n',
      'src/store/pool.ts': "import { Pool } from 'pg';\nexport const pool = Pool;\n",
      'src/store/ingest-repository.ts': "import { pool } from './pool';\nexport const write = pool;\n",
      'src/store/ingest-rows.ts': "import { sql } from 'kysely';\nexport type Row = { id: string };\nexport const q = sql;\n",
      'src/store/contract-rows.ts': "import type { sql } from 'kysely';\nexport type ContractRow = ReturnType<typeof sql>;\n",
      'src/store/via.ts': "import { write } from './ingest-repository';\nexport const via = write;\n",
      'src/ingest/batch-plan.ts':
        "import type { Row } from '../store/ingest-rows';\nimport type { ContractRow } from '../store/contract-rows';\nimport { via } from '../store/via';\nexport const plan = (r: Row, c: ContractRow) => [r, c, via];\n",
    });
    const found = violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
    expect(found).toEqual(
      [
        'planner-runs-no-sql: src/ingest/batch-plan.ts → node_modules/pg/index.js',
        'planner-runs-no-sql: src/ingest/batch-plan.ts → src/store/ingest-repository.ts',
        'planner-runs-no-sql: src/ingest/batch-plan.ts → src/store/pool.ts',
        'planner-uses-kysely-types-only: src/store/ingest-rows.ts → node_modules/kysely/index.js',
      ].sort(),
    );
  });

  it('report nothing on a tree that keeps them', () => {
    expect(
      cruise({
        'src/domain/rule.ts': 'export const rule = 1;\n',
        'src/store/pool.ts': "import { rule } from '../domain/rule';\nexport const pool = rule;\n",
        'src/api/route.ts': "import { pool } from '../store/pool';\nexport const route = pool;\n",
      }),
    ).toEqual([]);
  });
});
