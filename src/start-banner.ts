/** What the start banner needs to know (main.ts gathers it once the service listens). */
export interface StartFacts {
  /** `http://HOST:PORT` the service listens on. */
  url: string;
  /** Absent: PostgreSQL from DATABASE_URL; else the embedded database's directory. */
  embeddedDir: string | undefined;
  /** Where the generated secrets are kept (embedded database only). */
  secretsFile: string;
  /** The admin token when it was generated at this start (shown once, on the first start). */
  generatedAdminToken: string | undefined;
  /** Whether ADMIN_TOKEN came from the environment. */
  adminTokenFromEnv: boolean;
  /** How many of each kind exist: a "next step" hint shows only while there is none. */
  counts: { merchants: number; requisites: number; operators: number };
}

/**
 * The lines `npm start` prints (README "Two commands"): where it listens and which database, the
 * admin token on the first start (and where it is kept) or how to print it again later, the pages,
 * and a "next step" hint for each kind of thing that does not exist yet. Pure: tested beside it.
 */
export function startBanner(f: StartFacts): string[] {
  const lines = [
    `Payment orders service listening on ${f.url}`,
    `Database: ${f.embeddedDir ? `embedded PostgreSQL in ${f.embeddedDir}` : 'PostgreSQL (DATABASE_URL)'}`,
  ];
  if (f.generatedAdminToken) {
    lines.push(`Admin token (generated now, kept in ${f.secretsFile}): ${f.generatedAdminToken}`);
  } else if (f.adminTokenFromEnv) {
    lines.push('Admin token: the ADMIN_TOKEN this process was started with');
  } else {
    lines.push(`Admin token: kept in ${f.secretsFile}; print it with: npm run -s admin -- token`);
  }
  lines.push(`Pages: ${f.url}/ (the merchant portal, the operators' console, the API documentation)`);
  const hints: string[] = [];
  if (f.counts.merchants === 0)
    hints.push(
      'Next: create a merchant (its API key is shown once):',
      '  npm run -s admin -- merchant create shop1 --fee 2.5',
    );
  if (f.counts.requisites === 0)
    hints.push(
      'Next: add a requisite for clients to pay to:',
      '  npm run -s admin -- requisite add --kind phone --bank Sberbank --address 79001234567 --holder "Ivan I."',
    );
  if (f.counts.operators === 0)
    hints.push(
      `Next: an operator account for the console (${f.url}/backoffice):`,
      '  npm run -s admin -- operator create alice --role admin',
    );
  return [...lines, ...hints];
}
