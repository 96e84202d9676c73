import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";

import type { FetchHandler } from "../http/handler.js";
import { invalidConfigurationHandler } from "../http/invalidConfiguration.js";
import { createRuntimeHandler } from "../http/runtimeHandler.js";
import { createRuntime } from "../runtime.js";
import { VERSION } from "../version.js";

/**
 * Turns the Functions HttpRequest into a web-standard Request, calls the shared handler, and
 * returns its Response. No routing or logic lives here.
 */
export async function handleFunctionsRequest(request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> {
  const method = request.method.toUpperCase();
  const body = method === "GET" || method === "HEAD" ? undefined : await request.arrayBuffer();
  const response = await handlerFor(
    process.env,
    context,
  )(new Request(request.url, { method, headers: Object.fromEntries(request.headers.entries()), ...(body ? { body } : {}) }));
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers.entries()),
    body: new Uint8Array(await response.arrayBuffer()),
  };
}

/**
 * The handler for the current settings, built on first request, not at import, so cold start does
 * no storage work. A working app is kept for the life of the process (the Functions host restarts
 * when app settings change), so the hot path compares nothing. Settings the app cannot run with do
 * not throw on every request: the process keeps answering health, readiness and MCP routes with
 * what to fix, logs the error once, and compares the environment on each request while it is in
 * that state, so it serves again as soon as the settings are fixed.
 */
let built: { handler: FetchHandler; invalidIn?: string } | undefined;

function handlerFor(env: NodeJS.ProcessEnv, context: InvocationContext): FetchHandler {
  if (built && built.invalidIn === undefined) return built.handler;
  const environment = JSON.stringify(Object.entries(env));
  if (built?.invalidIn !== environment) built = buildHandler(environment, context);
  return built.handler;
}

function buildHandler(environment: string, context: InvocationContext): { handler: FetchHandler; invalidIn?: string } {
  try {
    return { handler: createRuntimeHandler(createRuntime(process.env, { door: "functions" })) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    context.error(
      `central-memory-mcp cannot serve MCP requests until its settings are fixed (health answers, ready and MCP routes answer 503).\n${reason}`,
    );
    return { handler: invalidConfigurationHandler(error, VERSION), invalidIn: environment };
  }
}
