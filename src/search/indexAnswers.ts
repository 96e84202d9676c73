import { ValidationError } from "../domain/model/errors.js";
import type { ReadMode } from "../domain/model/model.js";
import type { ConflictSearch, EntitySearch, GraphIndex, IndexSource, PageRequest, RelationSearch } from "../domain/ports/graphIndex.js";
import type { TraversalPort } from "../domain/rules/navigation.js";
import type { TimeLens } from "../domain/rules/validity.js";
import type { Meaning } from "./meaning.js";
import { WorkspaceIndex } from "./workspaceIndex.js";

/**
 * The GraphIndex answered from a WorkspaceIndex: the two adapters (registry.ts keeps one per workspace,
 * scanningIndex.ts builds one per answer) differ only in where `current` gets it. The one-pass reads
 * (scanNodes, scanTags) stream straight from the source in both (GraphIndex says why).
 */
export abstract class WorkspaceIndexAnswers implements GraphIndex {
  /** `meaning` is absent when search by meaning is off (MEMORY_EMBEDDINGS=off): searches rank by words and graph. */
  protected constructor(
    protected readonly source: IndexSource,
    readonly meaning?: Meaning,
  ) {}

  /** An index of this snapshot, keeping the vectors of `meaning`'s model and lent those of the index it replaces. */
  protected buildIndex(snapshot: Parameters<typeof WorkspaceIndex.build>[0], generation: string | undefined, previous?: WorkspaceIndex) {
    return WorkspaceIndex.build(snapshot, generation, {
      ...(this.meaning ? { model: this.meaning.model } : {}),
      ...(previous ? { previous } : {}),
    });
  }

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

  async tagUsage(workspace: string, lens?: TimeLens) {
    return (await this.current(workspace)).tagUsage(lens);
  }

  scanNodes(workspace: string) {
    return this.source.scanNodes(workspace);
  }

  scanTags(workspace: string) {
    return this.source.scanTags(workspace);
  }

  /** Brings the index's vectors up to date and embeds the query first, unless the search needs no meaning (docs/search.md#meaning). */
  async searchEntities(workspace: string, query: EntitySearch, page: PageRequest) {
    const index = await this.current(workspace);
    const text = query.query?.trim() ?? "";
    if (query.mode === "words" || text === "") return index.searchEntities(query, page);
    if (!this.meaning || !index.vectors) {
      if (query.mode === "meaning") throw meaningOff();
      return index.searchEntities(query, page);
    }
    const prepared = await this.meaning.prepare(workspace, index.vectors, text);
    if ("unavailable" in prepared) {
      if (query.mode === "meaning")
        throw new ValidationError(
          `Search by meaning is unavailable right now (${prepared.unavailable}). Use mode 'words', or try again later.`,
        );
      return { ...index.searchEntities(query, page), unavailable: prepared.unavailable };
    }
    return index.searchEntities(query, page, prepared.vector);
  }

  async searchRelations(workspace: string, query: RelationSearch, page: PageRequest) {
    return (await this.current(workspace)).searchRelations(query, page);
  }

  async stats(workspace: string, lens?: TimeLens) {
    const index = await this.current(workspace);
    if (!this.meaning || !index.vectors) return index.stats(lens);
    // As a search would leave them: the packaged model embeds what is pending, an endpoint's re-embedding is started.
    await this.meaning.settle(workspace, index.vectors);
    return { ...index.stats(lens), embedding: this.meaning.progress(index.vectors) };
  }

  async traversal(workspace: string, lens?: TimeLens): Promise<TraversalPort> {
    return (await this.current(workspace)).traversal(lens);
  }

  async conflicts(workspace: string, query: ConflictSearch) {
    return (await this.current(workspace)).conflicts(query);
  }
}

const meaningOff = () =>
  new ValidationError("Search by meaning is off on this server (MEMORY_EMBEDDINGS=off). Use mode 'words' or 'hybrid'.");
