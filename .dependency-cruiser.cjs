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
      comment: 'src/web (the browser UI) reads the service only through its public HTTP endpoints: it imports no server code.',
      from: { path: '^src/web/' },
      to: { path: '^src/', pathNot: '^src/web/' },
    },
    {
      name: 'server-does-not-import-web',
      severity: 'error',
      comment: 'The server serves the built UI as files (src/api/web-ui.ts); no server module imports the browser code.',
      from: { path: '^src/', pathNot: '^src/web/' },
      to: { path: '^src/web/' },
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
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Node's own modules (node:fs) are not files; they count as external, which domain-is-pure refuses.
    builtInModules: { add: [] },
  },
};
