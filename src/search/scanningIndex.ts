import type { EntitySearch, GraphIndex, IndexSource, PageRequest, RelationSearch } from "../domain/ports/graphIndex.js";
import type { ReadMode } from "../domain/model/model.js";
import type { TraversalPort } from "../domain/rules/navigation.js";
import { WorkspaceIndex } from "./workspaceIndex.js";

/**
 * The GraphIndex with no index kept: each answer scans the workspace once (IndexSource.snapshot, one
 * request per 1,000 rows) into a throw-away WorkspaceIndex and answers from it, so every whole-workspace
 * read, search and stats included, gives the same answer as the kept index (docs/search.md). Traversals
 * walk storage instead, one range read per entity visited (docs/navigate.md), since a scan would cost
 * more than most walks. Chosen at composition (src/runtime.ts) where nothing is worth keeping between calls.
 *
 * @example
 * const index = new ScanningGraphIndex(new TableIndexSource(storage), new TableGraphStore(storage).traversal);
 * const { entities } = await index.readGraph("team", { mode: "names" });
 */
export class ScanningGraphIndex implements GraphIndex {
  constructor(
    private readonly source: IndexSource,
    private readonly walk: TraversalPort,
  ) {}

  async readGraph(workspace: string, options: { limit?: number; after?: string; mode?: ReadMode }) {
    return (await this.scan(workspace)).page(options);
  }

  async searchNodes(workspace: string, query: string, limit: number) {
    return (await this.scan(workspace)).searchNodes(query, limit);
  }

  async listTags(workspace: string) {
    return (await this.scan(workspace)).listTags();
  }

  async tagUsage(workspace: string) {
    return (await this.scan(workspace)).tagUsage();
  }

  scanNodes(workspace: string) {
    return this.source.scanNodes(workspace);
  }

  scanTags(workspace: string) {
    return this.source.scanTags(workspace);
  }

  async searchEntities(workspace: string, query: EntitySearch, page: PageRequest) {
    return (await this.scan(workspace)).searchEntities(query, page);
  }

  async searchRelations(workspace: string, query: RelationSearch, page: PageRequest) {
    return (await this.scan(workspace)).searchRelations(query, page);
  }

  async stats(workspace: string) {
    return (await this.scan(workspace)).stats();
  }

  traversal(): Promise<TraversalPort> {
    return Promise.resolve(this.walk);
  }

  /** No generation: the index is never brought current, only read once. */
  private async scan(workspace: string): Promise<WorkspaceIndex> {
    return WorkspaceIndex.build(await this.source.snapshot(workspace), undefined);
  }
}
