// Builds the viewer (src/viewer) into `<root>/dist/viewer/`: the page's files, index.html, app.js (cytoscape bundled in,
// minified) and app.css, which src/http/viewerAssets.ts serves; and mcp-app.html, the same viewer as one self-contained
// document for the MCP Apps resource (docs/apps.md). `npm run build` runs it (scripts/bundle.mjs), and so do the tests that
// open the page (test/support/build.ts). Each file is written beside its place and renamed over it, so a server reading
// the folder while another build runs never sees a half-written file.
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { pid } from "node:process";

import { build, transform } from "esbuild";

/**
 * zod (which the ext-apps SDK brings) exports every locale from one index, ~250 KB minified; the app needs none but the
 * English messages zod itself configures. Its locales index is resolved to English only.
 * @type {import("esbuild").Plugin}
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(builder) {
    builder.onResolve({ filter: /[\\/]locales[\\/]index\.js$/ }, (args) =>
      /[\\/]zod[\\/]/.test(args.importer) ? { path: join(args.resolveDir, "../locales/en.js"), namespace: "zod-english" } : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: "zod-english" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
    }));
  },
};

const sha256 = (text) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/**
 * Makes bundled code safe to inline in an HTML <script> and free of URLs, without changing what it does: in minified
 * code "://" and "</" occur only inside string, template and regex literals, where "\/" means "/" too. (The URLs are
 * library identifiers such as JSON Schema's dialect names; nothing loads them, and the CSP would refuse it.)
 * That premise is checked, not trusted: the build fails when the result still holds what would end or re-enter the
 * script element ("<!--", "<script"), when it uses String.raw (whose literals keep "\/" as two characters), or when
 * the rewritten code no longer parses.
 * @param {string} code minified ESM
 * @returns {Promise<string>}
 */
export async function inlineSafe(code) {
  const safe = code.replaceAll("://", ":\\/\\/").replaceAll("</", "<\\/");
  const unsafe = /<!--|<script/i.exec(safe) ?? /String\.raw/.exec(safe);
  if (unsafe) {
    throw new Error(
      `The app's inline script holds "${unsafe[0]}" after the rewrite (at ${unsafe.index}): inlining it in mcp-app.html is not safe. ` +
        "Find which dependency brought it (esbuild --metafile) and keep it out of src/viewer/appMain.ts's bundle.",
    );
  }
  try {
    await transform(safe, { loader: "js", format: "esm", logLevel: "silent" });
  } catch (error) {
    throw new Error(
      `The app's inline script no longer parses after the "://" and "</" rewrite: ${error instanceof Error ? error.message : error}`,
    );
  }
  return safe;
}

/**
 * The app's document: index.html with its stylesheet and script inline. The <style> carries the id cytoscape looks for,
 * so it injects no stylesheet of its own; the CSP allows exactly these two blocks, by hash, and nothing else: no network
 * (connect-src 'none'), no other script or style, images only as data: URIs.
 */
function appDocument(page, css, js) {
  const style = `\n${css}`;
  const script = `\n${js}`;
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(style)}`,
    "connect-src 'none'",
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  const policy = `<meta charset="utf-8" />\n    <meta http-equiv="Content-Security-Policy" content="${csp}" />`;
  const head = `<style id="__________cytoscape_stylesheet">${style}</style>\n` + `    <script type="module">${script}</script>`;
  const html = page
    .replace('<meta charset="utf-8" />', () => policy)
    .replace(/\n\s*<!--[\s\S]*?-->/, "")
    // A function, not a string: the code holds "$&" and the like, which a replacement string would expand.
    .replace(/<link id="__________cytoscape_stylesheet"[^>]*>\n\s*<script type="module" src="[^"]*"><\/script>/, () => head);
  if (html === page || /\b(?:src|href)="(?!data:)/.test(html.replace(script, () => "").replace(style, () => ""))) {
    throw new Error("src/viewer/index.html changed shape: the app document would load a file. Update appDocument().");
  }
  return html;
}

/** @param {string} root the repository root */
export async function bundleViewer(root) {
  const target = join(root, "dist", "viewer");
  await mkdir(target, { recursive: true });
  const common = { outdir: target, bundle: true, minify: true, write: false, logLevel: "warning" };
  const scriptOptions = { ...common, platform: "browser", format: "esm", target: "es2022", legalComments: "none" };
  const [script, appScript, style] = await Promise.all([
    build({ ...scriptOptions, entryPoints: { app: join(root, "src/viewer/main.ts") } }),
    build({ ...scriptOptions, entryPoints: { "mcp-app": join(root, "src/viewer/appMain.ts") }, plugins: [zodEnglishOnly] }),
    build({ ...common, entryPoints: { app: join(root, "src/viewer/viewer.css") } }),
  ]);
  const page = await readFile(join(root, "src/viewer/index.html"), "utf8");
  const text = (result) => result.outputFiles[0].text;
  const files = [...script.outputFiles, ...style.outputFiles].map((file) => ({ name: basename(file.path), contents: file.contents }));
  files.push({ name: "index.html", contents: page });
  files.push({ name: "mcp-app.html", contents: appDocument(page, text(style), await inlineSafe(text(appScript))) });
  for (const { name, contents } of files) {
    const staging = join(target, `.${name}.${pid}`);
    await writeFile(staging, contents);
    await rename(staging, join(target, name));
  }
}
