import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

/**
 * The viewer's files, as `npm run build` (scripts/viewerBundle.mjs) writes them to dist/viewer/: the page, its script and its
 * style sheet, cytoscape bundled in. They are served from this app, never a CDN, read once per process and kept in memory
 * with their gzip encoding. The folder is found from the package root, so the same code serves them from src/ (tests),
 * dist/src/ (npm start) and dist/bundle/ (Azure Functions).
 */
const VIEWER_FILES = {
  "index.html": "text/html; charset=utf-8",
  "app.js": "text/javascript; charset=utf-8",
  "app.css": "text/css; charset=utf-8",
} as const;
export type ViewerFile = keyof typeof VIEWER_FILES;

interface Asset {
  type: string;
  body: ArrayBuffer;
  gzipped: ArrayBuffer;
}

/** A Buffer's bytes as the ArrayBuffer a Response body takes (a Buffer may be a view on a larger pool). */
const bytesOf = (buffer: Buffer): ArrayBuffer => new Uint8Array(buffer).buffer;

let loading: Promise<Map<ViewerFile, Asset>> | undefined;

/** The built files, or undefined when the viewer was not built (the route answers 503 and says how to build it). */
export async function viewerAssets(): Promise<Map<ViewerFile, Asset> | undefined> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  try {
    return await loading;
  } catch {
    return undefined;
  }
}

async function load(): Promise<Map<ViewerFile, Asset>> {
  const folder = join(await packageRoot(), "dist", "viewer");
  const assets = new Map<ViewerFile, Asset>();
  for (const [file, type] of Object.entries(VIEWER_FILES) as [ViewerFile, string][]) {
    const body = await readFile(join(folder, file));
    assets.set(file, { type, body: bytesOf(body), gzipped: bytesOf(gzipSync(body, { level: 9 })) });
  }
  return assets;
}

let appPage: Promise<string> | undefined;

/**
 * The MCP Apps' HTML (dist/viewer/mcp-app.html, one document with its script and style inline; docs/apps.md), for the
 * `ui://` resource the MCP server serves (McpContext.appHtml). It sits beside the page's files but is not one of them: it is
 * never served on /api/viewer/{file}, only as the resource. Kept once read; undefined while it is not built (asked again
 * next time, so a build after start is picked up).
 */
export async function appHtml(): Promise<string | undefined> {
  appPage ??= packageRoot().then((root) => readFile(join(root, "dist", "viewer", "mcp-app.html"), "utf8"));
  try {
    return await appPage;
  } catch {
    appPage = undefined;
    return undefined;
  }
}

async function packageRoot(): Promise<string> {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    try {
      const pkg = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as { name?: string };
      if (pkg.name === "central-memory-mcp") return dir;
    } catch {
      // not here; keep walking up
    }
    dir = dirname(dir);
  }
  throw new Error("The package root (central-memory-mcp's package.json) was not found above the viewer's module.");
}

/** An asset as a response, gzipped when the client accepts it. */
export function assetResponse(asset: Asset, request: Request, headers: Record<string, string>, status = 200): Response {
  const gzip = /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
  const body = gzip ? asset.gzipped : asset.body;
  return new Response(body, {
    status,
    headers: { "content-type": asset.type, vary: "Accept-Encoding", ...(gzip ? { "content-encoding": "gzip" } : {}), ...headers },
  });
}
