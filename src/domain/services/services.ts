import { CursorCodec, type CursorKeyProvider } from "../model/cursor.js";
import type { ConfirmationStore } from "../ports/confirmationStore.js";
import type { GraphIndex } from "../ports/graphIndex.js";
import type { GraphStore } from "../ports/store.js";
import { AdminService } from "./adminService.js";
import { AppService } from "./appService.js";
import { AsOfReads } from "./asOf.js";
import { ContextService } from "./contextService.js";
import { CoreService } from "./coreService.js";
import { CurateService } from "./curateService.js";
import { GraphService } from "./graphService.js";
import { HistoryService } from "./historyService.js";
import { NavigateService } from "./navigateService.js";
import { SearchService } from "./searchService.js";
import { TagService } from "./tagService.js";
import { TimeService } from "./timeService.js";

/**
 * The domain, one service per toolset (src/mcp/tool.ts TOOLSETS): a tool calls the service of its
 * toolset and no other. The services share the ports, the as-of reads and the cursor signer; none holds
 * a reference to another, except curate, which runs a non-atomic batch's steps through core and graph, context, which
 * searches through search, and apps, which opens a graph on search's ranking and a duplicate review on curate's detection.
 */
export interface Services {
  /** upsert_entity, upsert_relation, get_entity_relations. */
  core: CoreService;
  /** The official memory server's tools and read_graph; the bulk import. */
  graph: GraphService;
  /** Tags of entities and observations. */
  tags: TagService;
  /** The change feed: changes, entity history and restore (docs/history.md). */
  history: HistoryService;
  /** Ranked search and stats from the workspace index (docs/search.md). */
  search: SearchService;
  /** get_context, the memory-context prompt and name completions (docs/context.md); in the search toolset, over search. */
  context: ContextService;
  /** Neighbourhoods and paths (docs/navigate.md). */
  navigate: NavigateService;
  /** Batches, duplicates and merges (docs/curate.md). */
  curate: CurateService;
  /** Listing and deleting workspaces (docs/navigate.md#workspaces). */
  admin: AdminService;
  /** What the MCP Apps read (docs/apps.md): the graph, the duplicate review and the timeline; over search and curate. */
  apps: AppService;
  /**
   * Valid time, supersession, fact keys and expiry (docs/history.md#two-times): the history toolset's time tools and the
   * admin toolset's sweep_expired.
   */
  time: TimeService;
  /**
   * Not a service: the signer of continuation cursors (read_graph's, the history and search tools', those of maxChars
   * answers; docs/navigate.md#budgets), shared so a tool that cuts its answer signs with the same key.
   */
  cursors: CursorCodec;
  /**
   * Not a service: what asking before a destructive call needs (src/mcp/confirmation.ts, docs/confirmation.md): the
   * deployment's shared key, from which the request states' key is derived, and the record of used confirmations.
   */
  confirmations: { key: CursorKeyProvider; used: ConfirmationStore };
}

/**
 * Builds every service over the given ports. The adapters are chosen by the composition root (src/runtime.ts):
 * `index` is the kept index or the scanning one; `cursorKey` must be the same on every instance of a deployment.
 *
 * @example
 * const services = composeServices({ store, index, cursorKey, confirmations });
 * await services.graph.readGraph("team", { limit: 100 });
 */
export function composeServices(ports: {
  store: GraphStore;
  index: GraphIndex;
  cursorKey: CursorKeyProvider;
  confirmations: ConfirmationStore;
}): Services {
  const { store, index } = ports;
  const cursors = new CursorCodec(ports.cursorKey);
  const asOf = new AsOfReads(store);
  const core = new CoreService(store, asOf);
  const graph = new GraphService(store, index, asOf, cursors);
  const search = new SearchService(index, cursors);
  const history = new HistoryService(store, cursors, asOf);
  const curate = new CurateService(store, index, { core, graph });
  return {
    core,
    graph,
    tags: new TagService(store.tags, index),
    history,
    search,
    context: new ContextService(index, search, store, store.workspaces),
    navigate: new NavigateService(index),
    curate,
    admin: new AdminService(store.workspaces),
    apps: new AppService(store, index, asOf, cursors, { search, curate }),
    time: new TimeService(store, index),
    cursors,
    confirmations: { key: ports.cursorKey, used: ports.confirmations },
  };
}
