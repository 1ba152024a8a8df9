/**
 * The layering rules of docs/architecture.md, checked by `npm run lint:layers`
 * (part of `npm run lint`). A broken rule fails the build;
 * test/unit/layering.test.ts shows each rule firing on a deliberate violation.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Modules of src/ form no import cycle.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'store-and-domain-below-api-and-ingest',
      severity: 'error',
      comment: 'src/store and src/domain import neither the API nor ingestion (nor jobs or the simulator).',
      from: { path: '^src/(store|domain)/' },
      to: { path: '^src/(api|ingest|jobs|simulator)/' },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'src/domain holds rules and formats only: it imports only src/domain, no database, network or file system.',
      from: { path: '^src/domain/' },
      to: { pathNot: '^src/domain/' },
    },
    {
      name: 'internal-imports-no-layer',
      severity: 'error',
      comment: 'src/internal (configuration, logging, metrics, errors) is imported by all and imports none of the layers.',
      from: { path: '^src/internal/' },
      to: { path: '^src/(api|ingest|jobs|simulator|store|domain)/' },
    },
    {
      name: 'api-does-not-ingest',
      severity: 'error',
      comment: 'The API serves from the store; it never writes ingestion tables through the ingestion code.',
      from: { path: '^src/api/' },
      to: { path: '^src/(ingest|jobs|simulator)/' },
    },
    {
      name: 'web-is-a-client',
      severity: 'error',
      comment:
        'src/web (the browser UI) reads the service only through its public HTTP endpoints: it imports no server code, only the types of the answers (src/api/<area>/schemas.ts, type-only).',
      from: { path: '^src/web/' },
      to: { path: '^src/', pathNot: '^src/web/|^src/api/[a-z-]+/schemas\\.ts$' },
    },
    {
      name: 'web-takes-answer-types-only',
      severity: 'error',
      comment: 'The answer schemas reach the browser code as types, never as code (nothing of zod is bundled).',
      from: { path: '^src/web/' },
      to: { path: '^src/api/[a-z-]+/schemas\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'server-does-not-import-web',
      severity: 'error',
      comment: 'The server serves the built UI as files (src/api/web-ui.ts); no server module imports the browser code.',
      from: { path: '^src/', pathNot: '^src/web/' },
      to: { path: '^src/web/' },
    },
    {
      name: 'planner-runs-no-sql',
      severity: 'error',
      comment:
        "The planner (src/ingest/batch-plan*.ts) turns items into rows and runs no SQL: through no chain of imports, type-only ones included, does it reach the pool, a repository (the SQL; the writer's is src/store/ingest-repository.ts), pg or pg-copy-streams. Its rows and their COPY encoding are in src/store/ingest-rows.ts.",
      from: { path: '^src/ingest/batch-plan[^/]*\\.ts$' },
      to: {
        path: ['^src/store/pool\\.ts$', '^src/store/[^/]*-repository\\.ts$', '^node_modules/(pg|pg-copy-streams)/'],
        reachable: true,
      },
    },
    {
      name: 'planner-uses-kysely-types-only',
      severity: 'error',
      comment:
        'The planner and the rows it makes (src/store/ingest-rows.ts, contract-rows.ts) take only types from kysely (the rows are derived from the table types), never its query builder or sql tag.',
      from: { path: '^src/(ingest/batch-plan[^/]*|store/(ingest|contract)-rows)\\.ts$' },
      to: { path: '^node_modules/kysely/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-test-code-in-src',
      severity: 'error',
      comment: 'Nothing in src/ or bench/ imports from test/.',
      from: { path: '^(src|bench)/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // npm packages stay in the graph as leaves (doNotFollow) so that a rule can name them.
    exclude: { path: '^dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Node's own modules (node:fs) are not files; they count as external, which domain-is-pure refuses.
    builtInModules: { add: [] },
  },
};
