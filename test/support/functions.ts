import { app, type HttpFunctionOptions, type HttpHandler, HttpRequest, InvocationContext, type LogHandler } from "@azure/functions";

/**
 * The Azure Functions door, in-process: @azure/functions runs in "test mode" outside the host, so
 * registrations are recorded here and handlers are called with real HttpRequest/InvocationContext.
 */
export async function registerFunctions(): Promise<Map<string, HttpFunctionOptions>> {
  const registered = new Map<string, HttpFunctionOptions>();
  const original = app.http;
  app.http = (name: string, options: HttpFunctionOptions) => void registered.set(name, options);
  try {
    await import("../../src/functions/index.js");
  } finally {
    app.http = original;
  }
  return registered;
}

export interface FunctionsCall {
  method: string;
  /** Absolute URL. */
  url: string;
  body?: string;
  headers?: Record<string, string>;
  params?: Record<string, string>;
  /** Receives what the handler logs through its InvocationContext. */
  log?: LogHandler;
}

/** Calls a trigger's handler as the host would; the body comes back as text. */
export async function invokeFunction(handler: HttpHandler, call: FunctionsCall) {
  const request = new HttpRequest({
    method: call.method,
    url: call.url,
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...call.headers },
    ...(call.body !== undefined ? { body: { string: call.body } } : {}),
    ...(call.params ? { params: call.params } : {}),
  });
  const context = new InvocationContext({ functionName: "test", invocationId: "test", ...(call.log ? { logHandler: call.log } : {}) });
  const response = await handler(request, context);
  const body = response.body instanceof Uint8Array ? new TextDecoder().decode(response.body) : String(response.body ?? "");
  return { status: response.status ?? 200, headers: new Headers(response.headers as Record<string, string>), body };
}

/**
 * A `fetch` that delivers each request to the trigger whose route matches its path, as the Functions host would (with the
 * route's parameters), and turns the handler's answer back into a Response: an MCP SDK client given it connects through the
 * Functions door, in-process, with no host and no socket.
 */
export function functionsFetch(registered: Map<string, HttpFunctionOptions>): typeof fetch {
  const routes = [...registered.values()].map((options) => ({ match: routeMatcher(options.route ?? ""), options }));
  return async (input, init) => {
    const request = new Request(input, init);
    const path = new URL(request.url).pathname.replace(/^\//, "");
    const found = routes.map(({ match, options }) => ({ params: match(path), options })).find(({ params }) => params !== undefined);
    if (!found?.params) return new Response(null, { status: 404 }); // the host answers an unrouted path itself
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.text();
    const response = await invokeFunction(found.options.handler as HttpHandler, {
      method: request.method,
      url: request.url,
      headers: Object.fromEntries(request.headers.entries()),
      params: found.params,
      ...(body !== undefined ? { body } : {}),
    });
    return new Response(response.body === "" ? null : response.body, { status: response.status, headers: response.headers });
  };
}

/**
 * A Functions route template (`api/workspaces/{workspaceName}/mcp`; `{*rest}` for the remainder, which may be empty) as a
 * path matcher.
 */
function routeMatcher(route: string): (path: string) => Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = route.replace(/(\/?)\{(\*?)(\w+)\}|[.*+?^$()|[\]\\]/g, (token, slash = "", star = "", name?: string) => {
    if (name === undefined) return `\\${token}`;
    names.push(name);
    return star ? `(?:${slash}(.*))?` : `${slash}([^/]+)`;
  });
  const regex = new RegExp(`^${pattern}$`);
  return (path) => {
    const match = regex.exec(path);
    return match ? Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1] ?? "")])) : undefined;
  };
}
