// The layers of src/, from the bottom up, and the one direction imports may take (type imports
// count: a type names the module it comes from). `npm run lint` runs this; a new breach fails it.
//
//   util            plain helpers, no knowledge of the service
//   api             the typed client of the service, and its facts (limits, the job TTL)
//   config          settings: one table, their grammars and defaults (the service's limits among them)
//   files   store   storage   what is read from disk (sources, PDFs); what the tool keeps (results, journal, lock);
//                             object storage (s3://), whose objects become local files to the rest
//   batch           the scheduler: gate, jobs, flows
//   results         a result's data: its field paths and a person's corrections (`.review.json`)
//   checks          the schema checks of results (the `check` use case; the engine re-checks with them)
//   engine          the run around the scheduler: sessions, host, planner, parts, run records
//   export  review  usage   use cases, each standing on the engine and on nothing of the others
//   library         the engine's entry points for every front door
//   index + public entries (src/*.ts)   the package, as any program imports it
//   cli   mcp       front doors: they use only the package's public entries, config/ and util/
//
// The emulator stands apart: a faithful copy of the service, sharing no code with the tool, so a
// bug in one cannot hide the same bug in the other.
const LOWER = { util: [], config: ['util', 'api'], api: ['util'] };
// What sits above the scheduler, bottom up: a layer may import those below it, never those above.
const ABOVE_BATCH = ['results', 'checks', 'engine', '(export|review|usage)'];
const FRONT = '(library|cli|mcp|emulator)';
/** Paths of the layers above the `index`-th one of ABOVE_BATCH (-1: above batch/), the front doors and the package's entries. */
const above = (index) => [...ABOVE_BATCH.slice(index + 1), FRONT].map((layer) => `^src/${layer}/`).join('|') + '|^src/[^/]+\\.ts$';

// The package's public entries: the source of every subpath package.json exports (`docextract`,
// `docextract/jobs`, …), read from package.json itself so that exporting an entry is what opens it.
const PUBLIC_ENTRIES = Object.values(require('./package.json').exports)
  .map((target) => (typeof target === 'string' ? target : target.default))
  .filter((target) => target.startsWith('./dist/'))
  .map((target) => `^src/${target.slice('./dist/'.length).replace(/\.js$/, '.ts').replaceAll('.', '\\.')}$`);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A circle of modules has no bottom: neither can be read, tested or replaced without the other.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'util-is-the-floor',
      severity: 'error',
      comment: 'util/ holds plain helpers: it imports nothing else of src/.',
      from: { path: '^src/util/' },
      to: { path: '^src/', pathNot: '^src/util/' },
    },
    {
      name: 'config-over-api-and-util',
      severity: 'error',
      comment: 'config/ (settings, their defaults and grammars) rests on util/ and the facts of the API, so every layer above may read it.',
      from: { path: '^src/config/' },
      to: { path: '^src/', pathNot: ['^src/config/', ...LOWER.config.map((layer) => `^src/${layer}/`)] },
    },
    {
      name: 'api-over-util',
      severity: 'error',
      comment: 'api/ is the typed client of the service: it knows nothing of batches, files or the CLI.',
      from: { path: '^src/api/' },
      to: { path: '^src/', pathNot: ['^src/api/', ...LOWER.api.map((layer) => `^src/${layer}/`)] },
    },
    {
      name: 'files-and-store-below-the-scheduler',
      severity: 'error',
      comment:
        'files/, store/ and storage/ read and keep what is on disk or in a bucket; the scheduler and everything above them use them, never the other way.',
      from: { path: '^src/(files|store|storage)/' },
      to: { path: '^src/batch/|' + above(-1) },
    },
    {
      name: 'batch-below-results',
      severity: 'error',
      comment: 'The scheduler (batch/) knows no result data, no engine, no use case and no front door.',
      from: { path: '^src/batch/' },
      to: { path: above(-1) },
    },
    {
      name: 'results-below-checks',
      severity: 'error',
      comment: "A result's field paths and corrections are read by checks, the engine and the use cases; they know none of them.",
      from: { path: '^src/results/' },
      to: { path: above(0) },
    },
    {
      name: 'checks-below-engine',
      severity: 'error',
      comment: 'The schema checks are what the engine re-checks arrivals with: they know no run, no other use case, no front door.',
      from: { path: '^src/checks/' },
      to: { path: above(1) },
    },
    {
      name: 'engine-below-use-cases',
      severity: 'error',
      comment: 'The engine (sessions, host, planner, parts) knows no use case built on it, no front door and not the package entries.',
      from: { path: '^src/engine/' },
      to: { path: above(2) },
    },
    {
      name: 'use-cases-apart',
      severity: 'error',
      comment: 'Each use case (export, review, usage) stands on the engine and the layers below, never on another use case or a front door.',
      from: { path: '^src/(export|review|usage)/' },
      to: { path: '^src/(export|review|usage)/|' + above(3), pathNot: '^src/$1/' },
    },
    {
      name: 'library-below-front-doors',
      severity: 'error',
      comment: 'The library is what the front doors call; it never calls them.',
      from: { path: '^src/library/' },
      to: { path: '^src/(cli|mcp|emulator)/|^src/[^/]+\\.ts$' },
    },
    {
      name: 'emulator-stands-apart',
      severity: 'error',
      comment: 'The emulator is a copy of the service written from the spec: it shares no code with the tool it tests.',
      from: { path: '^src/emulator/' },
      to: { path: '^src/', pathNot: '^src/emulator/' },
    },
    {
      name: 'front-doors-use-the-public-entries',
      severity: 'error',
      comment:
        'The CLI and MCP are consumers of the package like any program: they import its public entries (src/index.ts and the ' +
        'subpaths package.json exports), config/, util/ and their own folder. The CLI may start the MCP server (`docextract mcp`) ' +
        "through the MCP's own entry.",
      from: { path: '^src/(cli|mcp)/' },
      to: {
        path: '^src/',
        pathNot: ['^src/$1/', '^src/(config|util)/', ...PUBLIC_ENTRIES, '^src/mcp/server\\.ts$'],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type imports are imports: a front door that names an engine type depends on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^src/review-page/' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
