import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium (the `chromium` package; `.ci/run` installs it when missing). */
export const CHROMIUM = '/usr/bin/chromium';

/** A reason to skip browser suites on a machine without Chromium, or false. */
export const noBrowser: string | false = existsSync(CHROMIUM) ? false : 'Debian chromium is not installed';

/**
 * Headless Chromium with the flags this workplace needs: no sandbox (root), and no background
 * networking, which the closed network would refuse many times over.
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
    ],
  });
}
