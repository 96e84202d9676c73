import type { IndexSource } from "../domain/ports/graphIndex.js";
import type { TraversalPort } from "../domain/rules/navigation.js";
import type { TimeLens } from "../domain/rules/validity.js";
import { WorkspaceIndexAnswers } from "./indexAnswers.js";
import { traversalThroughLens } from "./lensView.js";
import type { Meaning } from "./meaning.js";
import type { WorkspaceIndex } from "./workspaceIndex.js";

/**
 * The GraphIndex with no index kept: each answer scans the workspace once (IndexSource.snapshot, one
 * request per 1,000 rows) into a throw-away WorkspaceIndex and answers from it, so every whole-workspace
 * read, search and stats included, gives the same answer as the kept index (docs/search.md#freshness).
 * Traversals walk storage instead, one range read per entity visited (docs/navigate.md#get_neighbors),
 * since a scan would cost more than most walks. Chosen at composition (src/runtime.ts).
 *
 * @example
 * const index = new ScanningGraphIndex(new TableIndexSource(storage), new TableGraphStore(storage).traversal);
 * const { entities } = await index.readGraph("team", { mode: "names" });
 */
export class ScanningGraphIndex extends WorkspaceIndexAnswers {
  constructor(
    source: IndexSource,
    private readonly walk: TraversalPort,
    meaning?: Meaning,
  ) {
    super(source, meaning);
  }

  /** Through `lens`, an entity read that does not show reads as absent, so the walk neither returns nor crosses it. */
  override traversal(_workspace: string, lens?: TimeLens): Promise<TraversalPort> {
    return Promise.resolve(traversalThroughLens(this.walk, lens));
  }

  /** Built with no generation: never brought current, only read once. */
  protected async current(workspace: string): Promise<WorkspaceIndex> {
    return this.buildIndex(await this.source.snapshot(workspace), undefined);
  }
}
