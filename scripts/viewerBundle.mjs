// Builds the viewer (src/viewer) into `<root>/dist/viewer/`: index.html, app.js (cytoscape bundled in, minified) and app.css,
// the files src/http/viewerAssets.ts serves. `npm run build` runs it (scripts/bundle.mjs), and so do the tests that open the
// page (test/support/build.ts). Each file is written beside its place and renamed over it, so a server reading the folder
// while another build runs never sees a half-written file.
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { pid } from "node:process";

import { build } from "esbuild";

/** @param {string} root the repository root */
export async function bundleViewer(root) {
  const target = join(root, "dist", "viewer");
  await mkdir(target, { recursive: true });
  const common = { outdir: target, bundle: true, minify: true, write: false, logLevel: "warning" };
  const script = await build({
    ...common,
    entryPoints: { app: join(root, "src/viewer/main.ts") },
    platform: "browser",
    format: "esm",
    target: "es2022",
    legalComments: "none",
  });
  const style = await build({ ...common, entryPoints: { app: join(root, "src/viewer/viewer.css") } });
  const files = [...script.outputFiles, ...style.outputFiles].map((file) => ({ name: basename(file.path), contents: file.contents }));
  files.push({ name: "index.html", contents: await readFile(join(root, "src/viewer/index.html")) });
  for (const { name, contents } of files) {
    const staging = join(target, `.${name}.${pid}`);
    await writeFile(staging, contents);
    await rename(staging, join(target, name));
  }
}
