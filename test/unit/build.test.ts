import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";

import { spawnChild, waitForExit } from "../support/children.js";

/**
 * scripts/build.mjs (npm run build, and the step before npm start and npm run cli) builds only when an input changed
 * (issue #21, defect 13: every command rebuilt everything, 50-90 s under load). Run here in a folder with no TypeScript
 * installed: when it decides to build, tsc is missing and it fails; when nothing changed, it ends at once with success.
 */
const SCRIPT = resolve("scripts/build.mjs");
let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "central-memory-build-"));
  for (const folder of ["src", "test", "bench", "scripts", "dist"]) mkdirSync(join(root, folder));
  for (const file of ["src/a.ts", "tsconfig.json", "package.json"]) writeFileSync(join(root, file), "{}");
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every input an hour old, and a stamp of a build a minute ago. */
function builtAfterInputs(): void {
  const hourAgo = new Date(Date.now() - 3_600_000);
  for (const input of ["src/a.ts", "test/b.ts", "src", "test", "bench", "scripts", "tsconfig.json", "package.json"])
    if (existsSync(join(root, input))) utimesSync(join(root, input), hourAgo, hourAgo);
  writeFileSync(join(root, "dist/.build-stamp"), "");
  const minuteAgo = new Date(Date.now() - 60_000);
  utimesSync(join(root, "dist/.build-stamp"), minuteAgo, minuteAgo);
}

async function build(...args: string[]): Promise<{ code: number | string; output: string }> {
  const child = spawnChild(process.execPath, [SCRIPT, ...args], { cwd: root });
  let output = "";
  for (const stream of [child.stdout!, child.stderr!]) stream.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return { code: await waitForExit(child, 30_000), output };
}

describe("npm run build", () => {
  test("with nothing changed since the last build, builds nothing", async () => {
    builtAfterInputs();
    expect(await build()).toEqual({ code: 0, output: "" });
  });

  test("with no build yet, an edited file, an added file or a deleted one, builds", async () => {
    rmSync(join(root, "dist/.build-stamp"));
    expect((await build()).output).toMatch(/typescript/); // it ran tsc (missing here)

    builtAfterInputs();
    utimesSync(join(root, "src/a.ts"), new Date(), new Date());
    expect((await build()).code).not.toBe(0);

    builtAfterInputs();
    writeFileSync(join(root, "test/b.ts"), "");
    expect((await build()).code).not.toBe(0);

    builtAfterInputs();
    expect(await build()).toEqual({ code: 0, output: "" }); // the added file, now built
    rmSync(join(root, "test/b.ts"));
    expect((await build()).code).not.toBe(0);
  });

  test("--force builds whatever the stamp says", async () => {
    builtAfterInputs();
    expect((await build("--force")).output).toMatch(/typescript/);
  });
});
