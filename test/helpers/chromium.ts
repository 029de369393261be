import { accessSync, constants } from 'node:fs';

/**
 * The Chromium the browser tests drive (Debian's `chromium` package; `.ci/run` installs it):
 * `CHROMIUM_PATH` when set, else the usual install paths. Playwright's own browser
 * downloads are not used: playwright-core drives the system's Chromium.
 */
const CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
];

export function findChromium(): string | undefined {
  const configured = process.env.CHROMIUM_PATH;
  for (const candidate of configured ? [configured] : CANDIDATES) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** In CI a missing browser is a failure; elsewhere the browser tests skip and say why. */
export const BROWSER_MISSING =
  'no Chromium found (install the Debian package `chromium`, or set CHROMIUM_PATH to a Chromium binary)';
export const requireBrowser = () => process.env.CI === 'true';
