import { rmSync } from "node:fs";

import type { AzuriteProcess } from "./azurite.js";

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __azurite?: AzuriteProcess }).__azurite?.stop();
  // The compile-once marker and lock of this run (test/support/build.ts).
  const run = process.env.TEST_RUN_ID;
  if (run) for (const suffix of ["", ".lock", ".failed"]) rmSync(`dist/.test-build-${run}${suffix}`, { recursive: true, force: true });
}
