import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Browser, chromium, type Page } from 'playwright-core';
import { onPostgres } from './database.js';

/** Debian's Chromium (the `chromium` package; `.ci/run` installs it when missing). */
export const CHROMIUM = '/usr/bin/chromium';

/** A reason to skip browser suites on a machine without Chromium, or false. */
export const noBrowser: string | false = existsSync(CHROMIUM) ? false : 'Debian chromium is not installed';

/**
 * The `skip` of a browser suite: without Chromium, or on the PostgreSQL pass. Pages render the same
 * from either database, and each page's behaviour on PostgreSQL is covered by its HTTP tests, so
 * the browser suites run once, in the embedded pass (`npm test`'s default, and CI's first: .ci/run).
 */
export const pageTestSkip: string | false =
  noBrowser || (onPostgres() ? 'page tests run on the embedded database (CI runs that pass too)' : false);

/**
 * Headless Chromium with the flags this workplace needs: no sandbox (root), no background
 * networking, which the closed network would refuse many times over, and no name resolution beyond
 * loopback (tests fulfil a merchant's logo with `page.route`).
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // No name resolves but loopback's: a page that reaches for the outside fails here, never sends.
      '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
    ],
  });
}

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** One axe-core violation, as the assertion message shows it. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * Runs axe-core in the page (evaluated through the DevTools protocol, so the page's strict CSP
 * stays on) and returns its serious and critical violations.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: () => Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run()).violations as Array<{
      id: string;
      impact: string | null;
      help: string;
      nodes: Array<{ target: unknown[] }>;
    }>;
  });
  return result
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => String(n.target[0])),
    }));
}
