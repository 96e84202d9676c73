import type { Context, Hono } from "hono";
import { compress } from "hono/compress";
import { generateCookie, getCookie } from "hono/cookie";
import { accessTo, ANONYMOUS, type Principal } from "../domain/model/access.js";
import { ValidationError } from "../domain/model/errors.js";
import { assertWorkspaceName } from "../domain/model/validation.js";
import { ALL_TOOLS } from "../mcp/tools/index.js";
import { ALL_TOOLSETS } from "../mcp/toolsets.js";
import type { AuthSettings } from "../config/auth.js";
import type { Services } from "../domain/services/services.js";
import type { ToolInstrument } from "../mcp/instrument.js";
import type { Authenticate } from "./auth/authenticate.js";
import { answerMcp } from "./mcpExchange.js";
import { errorResponse, methodNotAllowed } from "./responses.js";
import { ROUTE_PATHS } from "./routes.js";
import { assetResponse, viewerAssets, type ViewerFile } from "./viewerAssets.js";
import { credentialFingerprint, mintSession, SESSION_COOKIE, SESSION_SECONDS, sessionKeyFrom, verifySession } from "./viewerSession.js";

/**
 * The viewer (docs/viewer.md): a read-only page per workspace at GET /api/workspaces/{ws}/view, protected like the MCP
 * route. Its data comes from the same MCP server an agent talks to, on a data route that offers only the read-only tools
 * and accepts the viewer's session cookie; the MCP routes themselves never accept cookies.
 */

/** Sent with every viewer response: nothing but this origin's own script, style and data; no framing, no forms. */
const VIEWER_HEADERS: Record<string, string> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};
const PRIVATE = { ...VIEWER_HEADERS, "cache-control": "no-store" };

/** Every tool that changes nothing, by its annotation: all the data route offers. */
const READ_ONLY_TOOLS = ALL_TOOLS.filter((tool) => tool.annotations.readOnlyHint);

/** What the viewer's routes use of the handler's dependencies (docs/viewer.md). */
interface ViewerDeps {
  services: Services;
  version: string;
  auth: { settings: AuthSettings; authenticate: Authenticate };
  instrument?: ToolInstrument;
  requestTimeoutMs: number;
  /** The key session tokens are signed with (derived from it); without it no session is minted or accepted. */
  sessionKey?: () => Promise<Uint8Array>;
}

type Viewer = { ok: true; principal: Principal; fromHeader: boolean } | { ok: false; response: Response };

export function serveViewer(app: Hono, deps: ViewerDeps): void {
  const route = (paths: readonly string[], method: "GET" | "POST", handle: (c: Context) => Promise<Response>) => {
    for (const path of paths) {
      app.on(method, path, handle);
      app.all(path, () => methodNotAllowed(method === "GET" ? "GET, HEAD" : method));
    }
  };
  route(ROUTE_PATHS.viewerAssets, "GET", async (c) => {
    const file = c.req.param("file") as ViewerFile;
    const assets = await viewerAssets();
    const asset = file === "index.html" ? undefined : assets?.get(file);
    if (!assets) return notBuilt();
    if (!asset) return errorResponse(404, { kind: "NotFound", message: `The viewer has no file ${c.req.param("file")}.` });
    // Code, the same for every caller and workspace: public, like the package it comes from. The data is what is protected.
    return assetResponse(asset, c.req.raw, { ...VIEWER_HEADERS, "cache-control": "public, max-age=300" });
  });
  route(ROUTE_PATHS.viewer, "GET", async (c) => {
    const assets = await viewerAssets();
    const page = assets?.get("index.html");
    if (!page) return notBuilt();
    const workspace = workspaceOf(c);
    if (workspace instanceof Response) return workspace;
    const viewer = await authenticateViewer(c, deps, workspace);
    if (!viewer.ok) {
      // Refused, and the body is the page itself: with no data, it can only offer to exchange a key for a session.
      const refused = viewer.response;
      return assetResponse(page, c.req.raw, { ...PRIVATE, ...headersOf(refused) }, refused.status);
    }
    const cookie = viewer.fromHeader ? await sessionSetCookie(c, deps, workspace, viewer.principal) : undefined;
    return assetResponse(page, c.req.raw, { ...PRIVATE, ...(cookie ? { "set-cookie": cookie } : {}) });
  });
  route(ROUTE_PATHS.viewerSession, "POST", async (c) => {
    const workspace = workspaceOf(c);
    if (workspace instanceof Response) return workspace;
    const foreign = foreignOrigin(c.req.raw, deps.auth.settings);
    if (foreign) return foreign;
    const viewer = await authenticateViewer(c, deps, workspace, { headerOnly: true });
    if (!viewer.ok) return viewer.response;
    const cookie = await sessionSetCookie(c, deps, workspace, viewer.principal);
    return new Response(null, { status: 204, headers: { ...PRIVATE, ...(cookie ? { "set-cookie": cookie } : {}) } });
  });
  // Tool answers are JSON that compresses ~10×: gzipped for the browser (the Functions host does not compress responses).
  for (const path of ROUTE_PATHS.viewerData) app.use(path, compress());
  route(ROUTE_PATHS.viewerData, "POST", async (c) => {
    const workspace = workspaceOf(c);
    if (workspace instanceof Response) return workspace;
    const foreign = foreignOrigin(c.req.raw, deps.auth.settings);
    if (foreign) return foreign;
    const viewer = await authenticateViewer(c, deps, workspace);
    if (!viewer.ok) return viewer.response;
    // The page reads: the caller's grant is narrowed to reading this one workspace, and only read-only tools exist here.
    const principal: Principal = { ...viewer.principal, grants: [{ workspaces: [workspace], access: "read" }] };
    const context = {
      services: deps.services,
      version: deps.version,
      principal,
      boundWorkspace: workspace,
      tools: READ_ONLY_TOOLS,
      // The page is a UI over every group (history, search, tags...); MEMORY_TOOLSETS trims what agents are shown.
      toolsets: ALL_TOOLSETS,
      ...(deps.instrument ? { instrument: deps.instrument } : {}),
    };
    const response = await answerMcp(c.req.raw, context, deps.requestTimeoutMs);
    for (const [name, value] of Object.entries(PRIVATE)) response.headers.set(name, value);
    return response;
  });
}

function notBuilt(): Response {
  return errorResponse(503, { kind: "Unavailable", message: "The viewer is not built on this server: run `npm run build`." });
}

function workspaceOf(c: Context): string | Response {
  try {
    return assertWorkspaceName(c.req.param("workspaceName") ?? "");
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return errorResponse(400, { kind: "ValidationError", message: error.message });
  }
}

/** The viewer's routes live under this path, and so does its cookie. */
const viewerPath = (workspace: string) => `/api/workspaces/${workspace}/view`;

/**
 * Who is asking, for one workspace: a credential header exactly as on the MCP route, else (auth on) the session cookie
 * minted for this workspace. A principal without a grant for it is refused (403).
 */
async function authenticateViewer(
  c: Context,
  deps: ViewerDeps,
  workspace: string,
  options: { headerOnly?: boolean } = {},
): Promise<Viewer> {
  const { settings, authenticate } = deps.auth;
  const request = c.req.raw;
  const hasHeader = request.headers.has("authorization") || request.headers.has("x-api-key");
  let principal: Principal | undefined;
  if (settings.mode.kind === "none") principal = ANONYMOUS;
  else if (!hasHeader && !options.headerOnly && getCookie(c, SESSION_COOKIE) !== undefined) {
    principal = await sessionPrincipal(getCookie(c, SESSION_COOKIE) ?? "", deps, workspace);
    if (!principal) {
      return refuse(
        401,
        "The viewer session has expired, was not issued for this workspace, or its key was changed or removed. Sign in again with your key.",
      );
    }
  } else {
    const authentication = await authenticate(request);
    if (!authentication.ok) {
      if (authentication.status === 503) return refuse(503, authentication.message, { "retry-after": "5" });
      return refuse(401, authentication.message);
    }
    principal = authentication.principal;
  }
  if (!accessTo(principal, workspace)) return refuse(403, `This caller has no grant for workspace '${workspace}'.`);
  return { ok: true, principal, fromHeader: hasHeader && settings.mode.kind !== "none" };
}

function refuse(status: 401 | 403 | 503, message: string, headers: Record<string, string> = {}): Viewer {
  const kind = status === 401 ? "Unauthorized" : status === 403 ? "Forbidden" : "Unavailable";
  return { ok: false, response: errorResponse(status, { kind, message }, { ...PRIVATE, ...headers }) };
}

function headersOf(response: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== "content-type") headers[name] = value;
  });
  return headers;
}

async function sessionSetCookie(c: Context, deps: ViewerDeps, workspace: string, principal: Principal): Promise<string | undefined> {
  if (!deps.sessionKey || deps.auth.settings.mode.kind === "none") return undefined;
  const key = sessionKeyFrom(await deps.sessionKey());
  const access = accessTo(principal, workspace) ?? "read";
  const expires = Math.floor(Date.now() / 1000) + SESSION_SECONDS;
  const entry = principal.kind === "key" ? keyEntryOf(deps.auth.settings, principal.id) : undefined;
  const credential = entry ? credentialFingerprint(key, entry.sha256) : undefined;
  const token = mintSession(key, {
    workspace,
    principalId: principal.id,
    kind: principal.kind,
    access,
    expires,
    ...(credential !== undefined ? { credential } : {}),
  });
  const secure = new URL(c.req.url).protocol === "https:" || deps.auth.settings.publicUrl?.startsWith("https:") === true;
  return generateCookie(SESSION_COOKIE, token, {
    path: viewerPath(workspace),
    maxAge: SESSION_SECONDS,
    httpOnly: true,
    sameSite: "Strict",
    secure,
  });
}

/** The configured key a `key:<id>` principal names, if it is still configured. */
function keyEntryOf(settings: AuthSettings, principalId: string) {
  const { mode } = settings;
  return mode.kind === "required" ? mode.keys?.find((candidate) => `key:${candidate.id}` === principalId) : undefined;
}

/**
 * The principal a session token stands for, when it is valid for this workspace. A key's session also ends as soon as
 * the key is no longer configured with a grant for the workspace, or its secret is replaced under the same id (the token
 * carries a fingerprint of the secret it was minted with); an Entra session lasts until it expires.
 */
async function sessionPrincipal(token: string, deps: ViewerDeps, workspace: string): Promise<Principal | undefined> {
  if (!deps.sessionKey) return undefined;
  const key = sessionKeyFrom(await deps.sessionKey());
  const session = verifySession(key, token, workspace, Math.floor(Date.now() / 1000));
  if (!session) return undefined;
  const principal: Principal = {
    id: session.principalId,
    kind: session.kind,
    grants: [{ workspaces: [workspace], access: session.access }],
  };
  if (session.kind !== "key") return principal;
  const entry = keyEntryOf(deps.auth.settings, session.principalId);
  if (!entry || session.credential !== credentialFingerprint(key, entry.sha256)) return undefined;
  const stillGranted = accessTo({ ...principal, grants: [{ workspaces: entry.workspaces, access: entry.access }] }, workspace);
  return stillGranted ? principal : undefined;
}

/**
 * The page calls only its own origin. A POST from any other origin is refused before anything runs, so no other site can
 * spend a viewer's cookie (SameSite=Strict already keeps the browser from sending it cross-site).
 */
function foreignOrigin(request: Request, settings: AuthSettings): Response | undefined {
  const origin = request.headers.get("origin");
  if (origin === null) return undefined;
  const own = new URL(request.url).origin;
  const publicOrigin = settings.publicUrl !== undefined ? new URL(settings.publicUrl).origin : undefined;
  if (origin === own || origin === publicOrigin) return undefined;
  return errorResponse(403, { kind: "Forbidden", message: `The viewer answers only its own pages, not requests from ${origin}.` }, PRIVATE);
}
