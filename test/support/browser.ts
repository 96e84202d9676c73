import { existsSync } from "node:fs";

import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium (.ci/run installs it when missing); CHROMIUM_PATH points elsewhere. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Whether a browser test can run here. Without Chromium the test is skipped locally, but in CI (CI=true) that is an
 * error: the browser test must run there.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  if (process.env.CI === "true")
    throw new Error(`CI=true but no Chromium at ${CHROMIUM_PATH}: .ci/run installs it (apt-get install -y chromium).`);
  return false;
}

/**
 * Headless Chromium as these tests and the bench drive it. Playwright gives it a fresh profile; the flags keep it from
 * reaching for the network on its own (updates, sync, field trials), which floods a closed network.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
