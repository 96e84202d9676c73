// `npm run build`, and the build step before `npm start`, `npm run cli`, the benches and the tests that run dist/: builds only
// when an input changed. A full build took 15 s on an idle 2-core machine and 50-90 s under load, and it ran before every CLI
// command; with nothing changed this step now takes well under a second. Inputs are every file and folder under src/, test/,
// bench/ and scripts/, plus tsconfig.json and package.json: a folder's mtime changes when a file is added, removed or renamed in
// it, so a deletion counts as a change too. When something changed, tsc runs incrementally (its build info sits in dist/, so
// `rm -rf dist` starts afresh) and the bundles are rebuilt. `--force` rebuilds whatever the stamp says.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { argv, cwd, execPath } from "node:process";

import ensureWordVectors from "./wordVectors.mjs";

const ROOT = cwd();
const STAMP = join(ROOT, "dist", ".build-stamp");
const INPUT_FOLDERS = ["src", "test", "bench", "scripts"];
const INPUT_FILES = ["tsconfig.json", "package.json", "package-lock.json"];

/** The newest mtime (ms) under `path`, folders included; 0 when it does not exist. */
function newest(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  let latest = stat.mtimeMs;
  if (stat.isDirectory()) for (const name of readdirSync(path)) latest = Math.max(latest, newest(join(path, name)));
  return latest;
}

/** Whether dist/ was built from the inputs as they are now. */
function upToDate() {
  if (!existsSync(STAMP)) return false;
  const built = statSync(STAMP).mtimeMs;
  return [...INPUT_FOLDERS, ...INPUT_FILES].every((input) => newest(join(ROOT, input)) < built);
}

// The word-vector model (dist/model/word-vectors.bin) has its own check, on what it is built from: see wordVectors.mjs.
ensureWordVectors({ force: argv.includes("--force-model") });

if (argv.includes("--force") || !upToDate()) {
  // The stamp is written with the time the build started, so an edit made while it runs still counts as newer.
  const started = new Date();
  execFileSync(execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(ROOT, "tsconfig.json"), "--incremental"], {
    stdio: "inherit",
  });
  await import("./bundle.mjs");
  mkdirSync(join(ROOT, "dist"), { recursive: true });
  writeFileSync(STAMP, `${started.toISOString()}\n`);
  utimesSync(STAMP, started, started);
}
