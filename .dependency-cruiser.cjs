/**
 * The structure of the service as rules (docs/architecture.md), checked by `npm run lint`:
 * no import circles; routes never touch the database; a module's tables are its own; modules meet
 * only through each other's index.ts; a kind imports only kinds below it (platform, then the core
 * in src/modules, then the rails, then the surfaces); and a module imports only modules of a lower
 * rank, so no two modules (folders) ever import each other.
 */

/** The folders of module kinds, from the ground up (docs/architecture.md "Kinds of module"). */
const KINDS = ['platform', 'modules', 'rails', 'surfaces'];
const MODULE = `^src/(${KINDS.join('|')})/`;
const kindRules = KINDS.slice(0, -1).map((kind, i) => ({
  name: `kind-${kind}`,
  comment: `${kind} imports no kind above it (${KINDS.slice(i + 1).join(', ')})`,
  severity: 'error',
  from: { path: `^src/${kind}/` },
  to: { path: `^src/(${KINDS.slice(i + 1).join('|')})/` },
}));

/** Module ranks: a module may import only modules of a lower rank (docs/architecture.md "Layers"). */
const RANKS = {
  catalog: 0,
  'bank-messages': 0,
  audit: 0,
  outbound: 0,
  'rate-limits': 0,
  sessions: 0,
  metrics: 0,
  health: 1,
  home: 1,
  merchants: 1,
  operators: 1,
  banks: 1,
  'bank-rules': 1,
  rates: 1,
  auth: 2,
  ledger: 3,
  requisites: 3,
  orders: 4,
  holders: 4,
  webhooks: 5,
  receipts: 5,
  crypto: 5,
  pool: 5,
  payouts: 6,
  devices: 6,
  chains: 6,
  appeals: 6,
  sandbox: 6,
  form: 7,
  pairing: 7,
  holder: 7,
  backoffice: 8,
  portal: 8,
};

const modules = Object.keys(RANKS);
const rankRules = modules.map((from) => {
  const notBelow = modules.filter((to) => to !== from && RANKS[to] >= RANKS[from]);
  return {
    name: `rank-${from}`,
    comment: `${from} (rank ${RANKS[from]}) imports only modules of a lower rank`,
    severity: 'error',
    from: { path: `${MODULE}${from}/` },
    to: { path: `${MODULE}(${notBelow.join('|')})/` },
  };
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import circle, of files or through them',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'routes-not-db',
      comment: 'Routes call one service; they never touch the database',
      severity: 'error',
      from: { path: '-routes\\.ts$' },
      to: { path: '^src/db/' },
    },
    {
      name: 'own-tables-only',
      comment: "A module reads and writes its own tables only (src/db/tables/<module>.ts); others' through their index.ts",
      severity: 'error',
      from: { path: `${MODULE}([^/]+)/` },
      to: { path: '^src/db/tables/', pathNot: '^src/db/tables/$2\\.ts$' },
    },
    {
      name: 'tables-in-modules-only',
      comment: 'Only modules (and the tables themselves) import tables',
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/(${KINDS.join('|')}|db/tables)/` },
      to: { path: '^src/db/tables/' },
    },
    {
      name: 'public-interface-only',
      comment: "Modules meet through each other's index.ts; everything else in a module is private",
      severity: 'error',
      from: { path: `${MODULE}([^/]+)/` },
      to: { path: MODULE, pathNot: [`^src/$1/$2/`, `${MODULE}[^/]+/index\\.ts$`] },
    },
    {
      name: 'outside-uses-index',
      comment: "The composition root and the processes use a module's index.ts too",
      severity: 'error',
      from: { path: '^src/', pathNot: MODULE },
      to: { path: MODULE, pathNot: `${MODULE}[^/]+/index\\.ts$` },
    },
    {
      name: 'lib-is-ground',
      comment: 'src/lib holds stateless helpers that import nothing else of the service',
      severity: 'error',
      from: { path: '^src/lib/' },
      to: { path: '^src/', pathNot: '^src/lib/' },
    },
    {
      name: 'db-below-modules',
      comment: 'The database layer never imports modules, the HTTP layer or the composition',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: `^src/(${KINDS.join('|')}|http|composition|app|routes)` },
    },
    {
      name: 'http-below-modules',
      comment: 'The HTTP layer never imports modules or the composition',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: `^src/(${KINDS.join('|')}|composition|app|routes)` },
    },
    {
      name: 'modules-below-composition',
      comment: 'Modules never import the composition root, the app or the processes',
      severity: 'error',
      from: { path: MODULE },
      to: { path: '^src/(composition|app|routes|main|worker|jobs)\\.ts$' },
    },
    ...kindRules,
    ...rankRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
