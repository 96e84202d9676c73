import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

import { bundleViewer } from "../../scripts/viewerBundle.mjs";
import { spawnChild, waitForExit } from "./children.js";

/** The repository root: jest runs from it. */
export const ROOT = resolve(".");

/**
 * Runs `npm run build` (scripts/build.mjs: compiles into dist/ and bundles, only if an input changed since the last build) once
 * per `npm test` run, for the tests that start the built server or CLI as a child process or check the bundle. The build is a
 * reaped child with a time limit, so a stuck compiler fails the test instead of holding the run.
 */
export async function buildOnce(): Promise<void> {
  await oncePerRun("test-build", async () => {
    const build = spawnChild(process.execPath, [join(ROOT, "scripts/build.mjs")], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
    const code = await waitForExit(build, 600_000);
    if (code !== 0) throw new Error(`npm run build (scripts/build.mjs) failed: ${code}`);
  });
}

/** Builds the viewer's page, script and style into dist/viewer/ once per `npm test` run, for the tests that serve it. */
export async function viewerBuildOnce(): Promise<void> {
  await oncePerRun("viewer-build", () => bundleViewer(ROOT));
}

/**
 * Runs `work` once per `npm test` run across the parallel test workers. Without this, two of them compiled into the same
 * dist/ at once and one could read a file the other was half-way through writing. The first caller takes a lock directory
 * and works; the others wait for its marker. TEST_RUN_ID (set by jest's globalSetup) names this run, so a stale marker
 * from an earlier run never counts.
 */
async function oncePerRun(name: string, work: () => Promise<void>): Promise<void> {
  const run = process.env.TEST_RUN_ID ?? `pid-${process.pid}`;
  const done = join(ROOT, "dist", `.${name}-${run}`);
  const lock = join(ROOT, "dist", `.${name}-${run}.lock`);
  if (existsSync(done)) return;
  mkdirSync(join(ROOT, "dist"), { recursive: true });
  const failed = `${done}.failed`;
  try {
    mkdirSync(lock);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    for (let waited = 0; !existsSync(done); waited += 200) {
      if (existsSync(failed)) throw new Error(`The ${name} step failed in another test file: see its output (or run npm run build).`);
      if (waited > 180_000) throw new Error(`Another test file did not finish the ${name} step (lock ${lock}).`);
      await sleep(200);
    }
    return;
  }
  try {
    await work();
  } catch (error) {
    writeFileSync(failed, "");
    throw error;
  }
  writeFileSync(done, "");
}
