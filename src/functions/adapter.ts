import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { createApp } from "../app.js";
import type { FetchHandler } from "../http/handler.js";
import { invalidConfigurationHandler } from "../http/invalidConfiguration.js";
import { VERSION } from "../version.js";

/**
 * Turns the Functions HttpRequest into a web-standard Request, calls the shared handler, and
 * returns its Response. No routing or logic lives here.
 */
export async function handleFunctionsRequest(request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> {
  const method = request.method.toUpperCase();
  const body = method === "GET" || method === "HEAD" ? undefined : await request.arrayBuffer();
  const response = await handlerFor(process.env, context)(
    new Request(request.url, { method, headers: Object.fromEntries(request.headers.entries()), ...(body ? { body } : {}) }),
  );
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers.entries()),
    body: new Uint8Array(await response.arrayBuffer()),
  };
}

/**
 * The handler for the current settings: built on first request, not at import, so cold start does
 * no storage work; built again only when the environment differs from the one it was built from,
 * so it always serves the settings the process has now. Settings the app cannot run with do not throw on every
 * request: the process keeps answering health, readiness and MCP routes with what to fix, and the
 * error is logged once, when the handler for those settings is built.
 */
let built: { environment: string; handler: FetchHandler } | undefined;

function handlerFor(env: NodeJS.ProcessEnv, context: InvocationContext): FetchHandler {
  const environment = JSON.stringify(Object.entries(env));
  if (built?.environment !== environment) built = { environment, handler: buildHandler(context) };
  return built.handler;
}

function buildHandler(context: InvocationContext): FetchHandler {
  try {
    return createApp().handler;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    context.error(`central-memory-mcp cannot serve MCP requests until its settings are fixed (health answers, ready and MCP routes answer 503).\n${reason}`);
    return invalidConfigurationHandler(error, VERSION);
  }
}
