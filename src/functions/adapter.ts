import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { createApp, type App } from "../app.js";

/**
 * Turns the Functions HttpRequest into a web-standard Request, calls the shared handler, and
 * returns its Response. No routing or logic lives here.
 */
let app: App | undefined;

/** Built on first request, not at import, so cold start does no storage work. */
function sharedApp(): App {
  app ??= createApp();
  return app;
}

export async function handleFunctionsRequest(request: HttpRequest, _context: InvocationContext): Promise<HttpResponseInit> {
  const method = request.method.toUpperCase();
  const body = method === "GET" || method === "HEAD" ? undefined : await request.arrayBuffer();
  const response = await sharedApp().handler(
    new Request(request.url, { method, headers: Object.fromEntries(request.headers.entries()), ...(body ? { body } : {}) }),
  );
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers.entries()),
    body: new Uint8Array(await response.arrayBuffer()),
  };
}
