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
