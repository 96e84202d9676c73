import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import { getToolUiResourceUri, isToolVisibilityAppOnly, isToolVisibilityModelOnly } from "@modelcontextprotocol/ext-apps/app-bridge";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { build } from "esbuild";
import type { Browser, BrowserContext, Frame, FrameLocator, Page } from "playwright-core";

import type { McpTestClient } from "./harness.js";

/**
 * A minimal MCP Apps host for the browser tests and the bench (docs/apps.md), built on the extension SDK's host side.
 *
 * Node side: a real MCP SDK client on the real server lists the tools, calls the tool that opens an app and reads the tool's
 * `ui://` resource. Browser side: a host page in headless Chromium, served from a loopback origin of its own, runs the
 * SDK's AppBridge (bundled for the browser by esbuild, once per process). It renders the resource's HTML in a sandboxed
 * iframe (`allow-scripts` only: an opaque origin, no access to the host page) with a CSP built from the resource's
 * `_meta.ui.csp` injected into it, hands the app its tool input and result once the app says `initialized`, and forwards the
 * app's tools/call to the Node client, which is where the caller's credential lives (an app never holds one).
 */

/** What a resource may ask of the host's CSP (the extension's McpUiResourceCsp); absent lists grant nothing. */
interface ResourceCsp {
  connectDomains?: string[];
  resourceDomains?: string[];
  frameDomains?: string[];
  baseUriDomains?: string[];
}

/** The `ui://` resource as resources/read returned it. */
interface AppResource {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: { ui?: { csp?: ResourceCsp; prefersBorder?: boolean } } & Record<string, unknown>;
}

/** One tools/call the app made through the host. `refusedByHost`: the host answered it without asking the server. */
interface AppCall {
  name: string;
  args: Record<string, unknown>;
  isError: boolean;
  refusedByHost?: boolean;
  /** The first text block of the answer (an error's message is in it). */
  text?: string;
}

export interface OpenedApp {
  page: Page;
  /** The app's frame, for locators. */
  frame: FrameLocator;
  /** The app's frame itself, for evaluate. */
  appFrame(): Promise<Frame>;
  /** The opening tool's result as the app received it. */
  result: CallToolResult;
  resource: AppResource;
  /** The CSP the host injected into the app's document. */
  csp: string;
  /** Every tools/call the app made, in order. */
  calls: AppCall[];
  /** Console errors, page errors and dialogs, in the host page and the app alike. */
  incidents: string[];
  /** Network loads from the app's frame that got an answer (a srcdoc app with everything inline makes none). */
  appRequests: string[];
  /** The first call the app made (or makes next) to `name` that satisfies `matches`, once its answer is back. */
  waitForCall(name: string, matches?: (call: AppCall) => boolean): Promise<AppCall>;
  /** Milliseconds from the host creating the iframe to the app's `viewer-interactive` mark (waits for the mark). */
  interactiveMs(): Promise<number>;
}

interface OpenOptions {
  /** What the host sends the app as the tool's result, from the result the server gave (a test that plays a tampered host). */
  result?: (result: CallToolResult) => CallToolResult;
  /** Wait for body[data-state=ready] in the app (the default), or return once the iframe is loading. */
  waitForReady?: boolean;
  viewport?: { width: number; height: number };
}

export interface AppHost {
  client: McpTestClient;
  /** tools/list as the server answered it. */
  tools: Tool[];
  /** What this host would show its model: tools/list minus the app-only tools. */
  modelTools: Tool[];
  /** Calls `toolName` as the model would, reads its `ui://` resource and renders it in a fresh browser context. */
  open(toolName: string, args?: Record<string, unknown>, options?: OpenOptions): Promise<OpenedApp>;
  /** resources/read of a `ui://` resource. */
  readResource(uri: string): Promise<AppResource>;
  /** Renders a resource in a fresh browser context as if `result` were the result of a call with `args` (what open does after its calls). */
  render(resource: AppResource, args: Record<string, unknown>, result: CallToolResult, options?: OpenOptions): Promise<OpenedApp>;
  /** Closes every browser context this host opened, its page server and its client; safe to call twice. */
  teardown(): Promise<void>;
}

interface AppHostOptions {
  browser: Browser;
  /**
   * A real MCP SDK client on the server, with the caller's credential: a test's connectClient (test/support/harness.ts), on a
   * bound route or on /api/mcp (the app names its workspace in every call). The host owns it: teardown closes it.
   */
  client: McpTestClient;
}

const HOST_INFO = { name: "central-memory-test-host", version: "1.0.0" };

let hostScript: Promise<string> | undefined;

/** The SDK's host side bundled for the browser, as a global `ExtAppsHost`: built once per process (about a second). */
function hostBundle(): Promise<string> {
  hostScript ??= build({
    stdin: {
      contents: 'export { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";',
      resolveDir: process.cwd(),
      loader: "ts",
    },
    bundle: true,
    format: "iife",
    globalName: "ExtAppsHost",
    platform: "browser",
    target: "es2022",
    minify: true,
    write: false,
    logLevel: "silent",
  }).then((result) => result.outputFiles[0]!.text);
  return hostScript;
}

const HOST_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>MCP Apps test host</title>' +
  "<style>body{margin:0;font:14px system-ui}iframe{display:block;width:100%;height:100vh;border:0}</style></head>" +
  '<body><script src="/host.js"></script></body></html>';

/** The host page and its script, from a loopback origin of its own (as a chat client serves its page from its own origin). */
async function servePage(): Promise<{ url: string; server: Server }> {
  const script = await hostBundle();
  const server = createServer((request, response) => {
    const body = request.url === "/host.js" ? script : request.url === "/" ? HOST_PAGE : undefined;
    // No favicon: an empty answer, so the browser logs no failed load as an incident.
    if (request.url === "/favicon.ico") return void response.writeHead(204).end();
    if (body === undefined) return void response.writeHead(404).end();
    response.writeHead(200, { "content-type": request.url === "/" ? "text/html; charset=utf-8" : "text/javascript; charset=utf-8" });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

/**
 * The CSP a host puts on an app, from what its resource declared (the extension's rule: an empty or absent list grants
 * nothing). Inline script and style are allowed because the app is one self-contained document.
 */
function appCsp(declared: ResourceCsp | undefined): string {
  const origins = (list: string[] | undefined) => (list && list.length > 0 ? list.join(" ") : "");
  const resources = origins(declared?.resourceDomains);
  const orNone = (list: string[] | undefined) => origins(list) || "'none'";
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${resources}`,
    `style-src 'unsafe-inline' ${resources}`,
    `img-src data: blob: ${resources}`,
    `font-src data: ${resources}`,
    `media-src data: ${resources}`,
    `connect-src ${orNone(declared?.connectDomains)}`,
    `frame-src ${orNone(declared?.frameDomains)}`,
    `base-uri ${orNone(declared?.baseUriDomains)}`,
    "object-src 'none'",
    "form-action 'none'",
  ]
    .map((directive) => directive.trim())
    .join("; ");
}

/** The app's HTML with the CSP as the first thing in its head, so it governs everything the document loads or runs. */
function withCsp(html: string, csp: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${csp.replace(/"/g, "&quot;")}">`;
  const head = /<head(\s[^>]*)?>/i.exec(html);
  if (head) return html.slice(0, head.index + head[0].length) + meta + html.slice(head.index + head[0].length);
  return `<head>${meta}</head>${html}`;
}

/** Whether an app may call this listed tool: every tool is, unless its listing makes it the model's only. */
function visibleToApps(tool: Tool): boolean {
  return !isToolVisibilityModelOnly(tool as Parameters<typeof isToolVisibilityModelOnly>[0]);
}

function firstText(result: CallToolResult): string | undefined {
  const block = result.content.find((item) => item.type === "text");
  return block?.type === "text" ? block.text : undefined;
}

export async function startAppHost(options: AppHostOptions): Promise<AppHost> {
  const client = options.client;
  const contexts: BrowserContext[] = [];
  let served: { url: string; server: Server } | undefined;
  let tools: Tool[];
  try {
    tools = (await client.client.listTools()).tools;
    served = await servePage();
  } catch (error) {
    await client.close();
    throw error;
  }
  const page = served;
  const byName = new Map(tools.map((tool) => [tool.name, tool]));

  async function open(toolName: string, args: Record<string, unknown> = {}, openOptions: OpenOptions = {}): Promise<OpenedApp> {
    const tool = byName.get(toolName);
    if (!tool) throw new Error(`${toolName} is not listed on this connection.`);
    const uri = getToolUiResourceUri(tool as Parameters<typeof getToolUiResourceUri>[0]);
    if (!uri) throw new Error(`${toolName} names no ui:// resource in its _meta.`);
    const served = await client.call(toolName, args);
    const result = openOptions.result ? openOptions.result(served) : served;
    return render(await readAppResource(uri), args, result, openOptions);
  }

  async function readAppResource(uri: string): Promise<AppResource> {
    const read = await client.client.readResource({ uri });
    const resource = read.contents[0] as AppResource | undefined;
    if (!resource || typeof resource.text !== "string") throw new Error(`resources/read of ${uri} returned no text.`);
    return resource;
  }

  async function render(
    resource: AppResource,
    args: Record<string, unknown>,
    result: CallToolResult,
    openOptions: OpenOptions = {},
  ): Promise<OpenedApp> {
    const csp = appCsp(resource._meta?.ui?.csp);

    const context = await options.browser.newContext({ viewport: openOptions.viewport ?? { width: 1280, height: 800 } });
    contexts.push(context);
    const tab = await context.newPage();
    const calls: AppCall[] = [];
    const waiters: { accepts: (call: AppCall) => boolean; resolve: (call: AppCall) => void }[] = [];
    const record = (made: AppCall) => {
      calls.push(made);
      for (const waiter of waiters.filter((candidate) => candidate.accepts(made))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(made);
      }
    };
    const incidents: string[] = [];
    const appRequests: string[] = [];
    tab.on("dialog", (dialog) => {
      incidents.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    tab.on("pageerror", (error) => incidents.push(`pageerror: ${error.message}`));
    tab.on("console", (message) => {
      if (message.type() === "error") incidents.push(`console: ${message.text()}`);
    });
    // Answered loads only: a load the CSP blocks still shows as a request, which then fails without leaving the browser.
    tab.on("requestfinished", (request) => {
      if (request.frame() !== tab.mainFrame()) appRequests.push(request.url());
    });
    // The app's tools/call, as the host forwards it: the host refuses a tool its listing keeps from apps; anything else goes
    // to the server, which is the authority on the caller's grant (a tool it does not list is refused there, as an error).
    await tab.exposeFunction("hostCallTool", async (name: string, callArgs: Record<string, unknown>): Promise<CallToolResult> => {
      const listed = byName.get(name);
      if (listed && !visibleToApps(listed)) {
        const text = `${name} is not available to apps on this host.`;
        record({ name, args: callArgs, isError: true, refusedByHost: true, text });
        return { isError: true, content: [{ type: "text", text }] };
      }
      try {
        const answer = await client.call(name, callArgs);
        record({ name, args: callArgs, isError: answer.isError === true, ...(firstText(answer) ? { text: firstText(answer)! } : {}) });
        return answer;
      } catch (error) {
        record({ name, args: callArgs, isError: true, text: error instanceof Error ? error.message : String(error) });
        throw error;
      }
    });
    await tab.goto(page.url);
    await tab.evaluate(
      async ({ html, input, toolResult, hostInfo }) => {
        type Bridge = {
          oncalltool: (params: { name: string; arguments?: Record<string, unknown> }) => Promise<unknown>;
          oninitialized: () => void;
          sendToolInput(params: { arguments: Record<string, unknown> }): Promise<void>;
          sendToolResult(params: unknown): Promise<void>;
          connect(transport: unknown): Promise<void>;
        };
        const sdk = (
          window as unknown as {
            ExtAppsHost: { AppBridge: new (...args: unknown[]) => Bridge; PostMessageTransport: new (...args: unknown[]) => unknown };
          }
        ).ExtAppsHost;
        const host = window as unknown as {
          hostCallTool(name: string, args: Record<string, unknown>): Promise<unknown>;
          hostTimes: { iframeCreated: number };
          hostBridge: Bridge;
        };
        host.hostTimes = { iframeCreated: performance.timeOrigin + performance.now() };
        const iframe = document.createElement("iframe");
        iframe.id = "app";
        iframe.title = "MCP App";
        // Scripts only: no allow-same-origin, so the app runs in an opaque origin and cannot reach the host page.
        iframe.setAttribute("sandbox", "allow-scripts");
        document.body.append(iframe);
        const bridge = new sdk.AppBridge(
          null,
          hostInfo,
          { serverTools: {}, logging: {} },
          {
            hostContext: { theme: "light", displayMode: "inline", platform: "web" },
          },
        );
        bridge.oncalltool = (params) => host.hostCallTool(params.name, params.arguments ?? {});
        // The extension's order: input, then result, once the app has said it is initialized.
        bridge.oninitialized = () => void bridge.sendToolInput({ arguments: input }).then(() => bridge.sendToolResult(toolResult));
        host.hostBridge = bridge;
        await bridge.connect(new sdk.PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
        // Loaded only now that the bridge listens, so the app's first message cannot be missed.
        iframe.srcdoc = html;
      },
      { html: withCsp(resource.text, csp), input: args, toolResult: result, hostInfo: HOST_INFO },
    );
    const frame = tab.frameLocator("#app");
    const appFrame = async () => {
      const handle = await tab.waitForSelector("#app", { state: "attached" });
      const found = await handle.contentFrame();
      if (!found) throw new Error("The app's iframe has no frame.");
      return found;
    };
    if (openOptions.waitForReady !== false) {
      const body = frame.locator("body[data-state=ready], body[data-state=error]");
      await body.waitFor({ state: "attached", timeout: 30_000 });
      if ((await frame.locator("body").getAttribute("data-state")) === "error") {
        throw new Error(`The app opened in error: ${await frame.locator("#error").textContent()} (calls: ${JSON.stringify(calls)})`);
      }
    }
    return {
      page: tab,
      frame,
      appFrame,
      result,
      resource,
      csp,
      calls,
      incidents,
      appRequests,
      waitForCall(name, matches = () => true) {
        const accepts = (made: AppCall) => made.name === name && matches(made);
        const done = calls.find(accepts);
        return done ? Promise.resolve(done) : new Promise((resolve) => waiters.push({ accepts, resolve }));
      },
      async interactiveMs() {
        const target = await appFrame();
        await target.waitForFunction(() => performance.getEntriesByName("viewer-interactive").length > 0, undefined, { timeout: 60_000 });
        const markAt = await target.evaluate(
          () => performance.timeOrigin + performance.getEntriesByName("viewer-interactive")[0]!.startTime,
        );
        const createdAt = await tab.evaluate(() => (window as unknown as { hostTimes: { iframeCreated: number } }).hostTimes.iframeCreated);
        return markAt - createdAt;
      },
    };
  }

  let closed = false;
  return {
    client,
    tools,
    modelTools: tools.filter((tool) => !isToolVisibilityAppOnly(tool as Parameters<typeof isToolVisibilityAppOnly>[0])),
    open: async (toolName, args, openOptions) => {
      if (closed) throw new Error("This app host was torn down.");
      return open(toolName, args, openOptions);
    },
    readResource: readAppResource,
    render: async (resource, args, result, openOptions) => {
      if (closed) throw new Error("This app host was torn down.");
      return render(resource, args, result, openOptions);
    },
    async teardown() {
      if (closed) return;
      closed = true;
      // Each step runs whatever the one before it did: a browser context left open would outlive the test.
      const steps = [
        ...contexts.map((context) => () => context.close()),
        () =>
          new Promise<void>((resolve) => {
            page.server.closeAllConnections();
            page.server.close(() => resolve());
          }),
        () => client.close(),
      ];
      const failures: unknown[] = [];
      for (const step of steps) await step().catch((error: unknown) => failures.push(error));
      if (failures.length > 0) throw failures[0];
    },
  };
}
