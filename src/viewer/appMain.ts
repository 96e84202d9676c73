import {
  App,
  applyDocumentTheme,
  applyHostStyleVariables,
  type McpUiHostContext,
  PostMessageTransport,
} from "@modelcontextprotocol/ext-apps";

import { byId } from "./dom.js";
import { startDuplicates } from "./duplicates.js";
import { startGraph } from "./graphScreen.js";
import { withWorkspace } from "./outcomes.js";
import { type DataSource, type Opening, structuredOf } from "./shapes.js";
import { showError, useSource } from "./state.js";
import { startTimeline } from "./timeline.js";

/**
 * The viewer as an MCP App (docs/apps.md): the same screens as the page, in the host's sandboxed frame. The host sends the
 * result of the tool that opened it (show_memory_graph, review_duplicates or show_entity_timeline); its `app` field picks
 * the screen. Every later read or write is a tool call the host makes for it (App.callServerTool), under the caller's grant.
 */

const app = new App({ name: "central-memory-viewer", version: "1.0.0" }, {});

/**
 * The workspace the opening result names. The host may have called the opening tool on the unbound route (/api/mcp),
 * where every tool requires workspaceName; a bound route accepts it when equal (src/mcp/workspace.ts). So every call
 * the app makes names it, once the opening arrived.
 */
let workspaceName: string | undefined;

const source: DataSource = {
  async call<T>(name: string, args: Record<string, unknown> = {}): Promise<T> {
    return structuredOf<T>(name, await app.callServerTool({ name, arguments: withWorkspace(args, workspaceName) }));
  },
};

/** The opening tool's arguments (the host sends them before its result), to open the graph again at another time. */
let openingArgs: Record<string, unknown> = {};
let opened = false;

function failed(error: unknown): void {
  showError(error);
  document.body.dataset.state = "error";
}

async function open(result: Parameters<NonNullable<App["ontoolresult"]>>[0]): Promise<void> {
  // One result opens the app; a later one (the host re-sending) changes nothing drawn.
  if (opened) return;
  opened = true;
  const opening = structuredOf<Opening>("the opening tool", result);
  workspaceName = opening.workspaceName;
  byId("title").textContent = `Memory · ${opening.workspaceName}`;
  if (opening.app === "graph") await startGraph(opening, openingArgs);
  else {
    byId("search").hidden = true;
    if (opening.app === "duplicates") startDuplicates(opening);
    else if (opening.app === "timeline") startTimeline(opening);
    else throw new Error("This result opens no app this viewer knows.");
  }
}

/** The host's theme and colours, where it offers them (CSS variables set through the CSSOM, which the CSP allows). */
function applyHost(context: McpUiHostContext | undefined): void {
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
}

document.documentElement.classList.add("in-app");
useSource(source);
app.ontoolinput = (params) => void (openingArgs = { ...(params.arguments ?? {}) });
app.ontoolresult = (result) => void open(result).catch(failed);
app.onhostcontextchanged = (context) => applyHost(context);
app
  .connect(new PostMessageTransport(window.parent, window.parent))
  .then(() => applyHost(app.getHostContext()))
  .catch(failed);
