import { build } from "esbuild";
import { copyFile, mkdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";

/**
 * Builds the viewer (src/viewer) into `<root>/dist/viewer/`: index.html, app.js (cytoscape bundled in, minified) and
 * app.css, the files src/http/viewerAssets.ts serves. `npm run build` calls it (scripts/bundle.mjs), and so do the tests that
 * open the page. It builds into a fresh folder and swaps it in, so a test file reading the folder never sees half of it.
 */
export async function bundleViewer(root: string): Promise<void> {
  const target = join(root, "dist", "viewer");
  const staging = `${target}.${process.pid}.${Date.now()}`;
  await mkdir(staging, { recursive: true });
  await build({
    entryPoints: { app: join(root, "src/viewer/main.ts") },
    outdir: staging,
    bundle: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    minify: true,
    legalComments: "none",
    logLevel: "warning",
  });
  await build({
    entryPoints: { app: join(root, "src/viewer/viewer.css") },
    outdir: staging,
    bundle: true,
    minify: true,
    logLevel: "warning",
  });
  await copyFile(join(root, "src/viewer/index.html"), join(staging, "index.html"));
  const old = `${staging}.old`;
  await rename(target, old).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
  // Another build may have swapped its own folder in meanwhile: it holds the same files, so this one is dropped.
  await rename(staging, target).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
    return rm(staging, { recursive: true, force: true });
  });
  await rm(old, { recursive: true, force: true });
}
