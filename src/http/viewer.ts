import type { Context, Hono, MiddlewareHandler } from "hono";
import { compress } from "hono/compress";
import { secureHeaders } from "hono/secure-headers";

import type { AuthSettings } from "../config/auth.js";
import type { Principal } from "../domain/model/access.js";
import { ALL_TOOLS } from "../mcp/tools/index.js";
import { ALL_TOOLSETS } from "../mcp/toolsets.js";
import type { Authenticate } from "./auth/authenticate.js";
import { sessionCookies } from "./auth/sessionCookies.js";
import { gate } from "./gate.js";
import { answerMcp, type ExchangeDeps } from "./mcpExchange.js";
import { ownOriginOnly } from "./origins.js";
import { errorResponse } from "./responses.js";
import { ROUTE_PATHS } from "./routes.js";
import { assetResponse, viewerAssets, type ViewerFile } from "./viewerAssets.js";

/**
 * The viewer (docs/viewer.md): a read-only page per workspace at GET /api/workspaces/{ws}/view, behind the same gate as the
 * MCP routes (gate.ts). Its data comes from the same MCP server an agent talks to, on a data route that offers only the
 * read-only tools and accepts the viewer's session cookie; the MCP routes themselves never accept cookies.
 */

/**
 * Sent with every viewer response: nothing but this origin's own script, style and data; no framing, no forms. Hono's other
 * secure headers are off: the viewer sends these and no others (docs/viewer.md#what-the-page-guarantees).
 */
const viewerHeaders = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    connectSrc: ["'self'"],
    imgSrc: ["'self'", "data:"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'none'"],
  },
  xContentTypeOptions: true,
  referrerPolicy: true,
  crossOriginResourcePolicy: false,
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  strictTransportSecurity: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xFrameOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
});

/** The page and its data are one caller's view of one workspace: no cache keeps them. */
const noStore: MiddlewareHandler = async (c, next) => {
  await next();
  c.res.headers.set("cache-control", "no-store");
};

/** Every tool that changes nothing, by its annotation: all the data route offers. */
const READ_ONLY_TOOLS = ALL_TOOLS.filter((tool) => tool.annotations.readOnlyHint);

/** What the viewer's routes use of the handler's dependencies (docs/viewer.md). */
interface ViewerDeps extends ExchangeDeps {
  auth: { settings: AuthSettings; authenticate: Authenticate };
  /** The key session tokens are signed with (derived from it); without it no session is minted or accepted. */
  sessionKey?: () => Promise<Uint8Array>;
}

export function serveViewer(app: Hono, deps: ViewerDeps): void {
  const { auth } = deps;
  const cookies = sessionCookies(auth.settings, deps.sessionKey);
  const ownOrigin = ownOriginOnly(auth.settings);
  for (const path of ROUTE_PATHS.viewerAssets) app.use(path, viewerHeaders);
  for (const path of [...ROUTE_PATHS.viewer, ...ROUTE_PATHS.viewerSession, ...ROUTE_PATHS.viewerData])
    app.use(path, viewerHeaders, noStore);

  app.on("GET", ROUTE_PATHS.viewerAssets, async (c) => {
    const file = c.req.param("file") as ViewerFile;
    const assets = await viewerAssets();
    const asset = file === "index.html" ? undefined : assets?.get(file);
    if (!assets) return notBuilt();
    if (!asset) return errorResponse(404, { kind: "NotFound", message: `The viewer has no file ${c.req.param("file")}.` });
    // Code, the same for every caller and workspace: public, like the package it comes from. The data is what is protected.
    return assetResponse(asset, c.req.raw, { "cache-control": "public, max-age=300" });
  });

  app.on(
    "GET",
    ROUTE_PATHS.viewer,
    pageBuilt,
    // Refused, and the body is the page itself: with no data, it can only offer to exchange a key for a session.
    gate({ auth, cookies, refused: (c, refusal) => sendPage(c, headersOf(refusal), refusal.status) }),
    async (c) => {
      const { principal, workspace, credential } = c.var.admission;
      const cookie = credential === "header" ? await cookies.setCookie(c, workspace!, principal) : undefined;
      return sendPage(c, cookie ? { "set-cookie": cookie } : {});
    },
  );

  app.on("POST", ROUTE_PATHS.viewerSession, ownOrigin, gate({ auth }), async (c) => {
    const { principal, workspace } = c.var.admission;
    const cookie = await cookies.setCookie(c, workspace!, principal);
    return new Response(null, { status: 204, headers: cookie ? { "set-cookie": cookie } : {} });
  });

  // Tool answers are JSON that compresses ~10×: gzipped for the browser (the Functions host does not compress responses).
  // On the route itself, not the path: a 405's body is written after it ran, and must not inherit its Content-Encoding.
  app.on("POST", ROUTE_PATHS.viewerData, compress(), ownOrigin, gate({ auth, cookies }), async (c) => {
    const { principal, workspace } = c.var.admission;
    // The page reads: the caller's grant is narrowed to reading this one workspace, and only read-only tools exist here.
    const reader: Principal = { ...principal, grants: [{ workspaces: [workspace!], access: "read" }] };
    // The page is a UI over every toolset (history, search, tags...); MEMORY_TOOLSETS trims what agents are shown.
    return answerMcp(c.req.raw, deps, { principal: reader, boundWorkspace: workspace, tools: READ_ONLY_TOOLS, toolsets: ALL_TOOLSETS });
  });
}

const viewerPage = async () => (await viewerAssets())?.get("index.html");

/** Before the gate: an unbuilt viewer says how to build it, whoever asks. */
const pageBuilt: MiddlewareHandler = async (_c, next) => ((await viewerPage()) ? next() : notBuilt());

async function sendPage(c: Context, headers: Record<string, string>, status = 200): Promise<Response> {
  const page = await viewerPage();
  return page ? assetResponse(page, c.req.raw, headers, status) : notBuilt();
}

function notBuilt(): Response {
  return errorResponse(503, { kind: "Unavailable", message: "The viewer is not built on this server: run `npm run build`." });
}

/** A refusal's headers (Retry-After on a 503), for the page sent in its place. */
function headersOf(response: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== "content-type") headers[name] = value;
  });
  return headers;
}
