import { byId } from "./dom.js";
import { startGraph } from "./graphScreen.js";
import { AccessError, ViewerApi } from "./rpc.js";
import type { GraphView } from "./shapes.js";
import { showError, useSource } from "./state.js";

/**
 * The viewer page (docs/viewer.md), at /api/workspaces/{ws}/view. It reads the workspace through the workspace's read-only
 * data route, with the tools the graph app uses (graphScreen.ts), and writes nothing.
 */

/** The page asks for the largest opening show_memory_graph gives: the whole graph up to 2,000 entities, else the hubs. */
const OPENING_LIMIT = 2000;

const workspace = decodeURIComponent(location.pathname.split("/")[3] ?? "");
const api = new ViewerApi(`/api/workspaces/${encodeURIComponent(workspace)}/view`);

function showSignIn(reason: string): void {
  document.body.dataset.state = "signin";
  byId("app").hidden = true;
  byId("signin").hidden = false;
  byId("signin-reason").textContent = reason;
  byId("signin-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const key = byId<HTMLInputElement>("signin-key").value.trim();
    api.signIn(key).then(
      () => location.reload(),
      (error: unknown) => void (byId("signin-error").textContent = error instanceof Error ? error.message : String(error)),
    );
  });
}

function failed(error: unknown): void {
  if (error instanceof AccessError && error.status !== 503) return showSignIn(error.message);
  byId("summary").textContent = error instanceof Error ? error.message : String(error);
  showError(error);
  document.body.dataset.state = "error";
}

async function start(): Promise<void> {
  byId("title").textContent = `Memory · ${workspace}`;
  document.title = `${workspace} · Memory viewer`;
  document.body.dataset.app = "graph";
  useSource(api);
  // The page has one screen: its frame is laid out while the opening data is on its way, not after.
  byId("app").hidden = false;
  byId("app").classList.add("no-details");
  const args = { limit: OPENING_LIMIT };
  const opening = await api.call<GraphView>("show_memory_graph", args);
  await startGraph(opening, args);
}

start().catch(failed);
