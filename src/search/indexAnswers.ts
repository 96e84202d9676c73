import type { ReadMode } from "../domain/model/model.js";
import type { EntitySearch, GraphIndex, IndexSource, PageRequest, RelationSearch } from "../domain/ports/graphIndex.js";
import type { TraversalPort } from "../domain/rules/navigation.js";
import type { WorkspaceIndex } from "./workspaceIndex.js";

/**
 * The GraphIndex answered from a WorkspaceIndex: the two adapters (registry.ts keeps one per workspace,
 * scanningIndex.ts builds one per answer) differ only in where `current` gets it. The one-pass reads
 * (scanNodes, scanTags) stream straight from the source in both (GraphIndex says why).
 */
export abstract class WorkspaceIndexAnswers implements GraphIndex {
  protected constructor(protected readonly source: IndexSource) {}

  /** The workspace's index, current as of this call. */
  protected abstract current(workspace: string): Promise<WorkspaceIndex>;

  async readGraph(workspace: string, options: { limit?: number; after?: string; mode?: ReadMode }) {
    return (await this.current(workspace)).page(options);
  }

  async searchNodes(workspace: string, query: string, limit: number) {
    return (await this.current(workspace)).searchNodes(query, limit);
  }

  async listTags(workspace: string) {
    return (await this.current(workspace)).listTags();
  }

  async tagUsage(workspace: string) {
    return (await this.current(workspace)).tagUsage();
  }

  scanNodes(workspace: string) {
    return this.source.scanNodes(workspace);
  }

  scanTags(workspace: string) {
    return this.source.scanTags(workspace);
  }

  async searchEntities(workspace: string, query: EntitySearch, page: PageRequest) {
    return (await this.current(workspace)).searchEntities(query, page);
  }

  async searchRelations(workspace: string, query: RelationSearch, page: PageRequest) {
    return (await this.current(workspace)).searchRelations(query, page);
  }

  async stats(workspace: string) {
    return (await this.current(workspace)).stats();
  }

  async traversal(workspace: string): Promise<TraversalPort> {
    return (await this.current(workspace)).traversal();
  }
}
