import type { IndexSource, RegistryState } from "../domain/ports/graphIndex.js";
import { WorkspaceIndexAnswers } from "./indexAnswers.js";
import type { Meaning } from "./meaning.js";
import type { WorkspaceIndex } from "./workspaceIndex.js";

interface Entry {
  index?: WorkspaceIndex;
  /** The refresh (or build) in flight, and when it started on this registry's clock. */
  refresh?: { startedAt: number; promise: Promise<WorkspaceIndex> };
}

/**
 * The workspace indexes of one instance (docs/search.md): built on first use by one scan, then
 * brought current before every answer by one read of the feed's tail. Concurrent answers for one
 * workspace share a refresh, but only one that started after they arrived, so every answer sees
 * every write that finished before it was asked (read-your-writes). The in-process promise is a
 * cache, not data safety: instances share nothing but storage.
 *
 * Memory is bounded: past `maxBytes` (estimated, WorkspaceIndex.estimatedBytes) the least recently used
 * indexes are dropped; a dropped workspace is built again on its next use. The index in use is kept.
 */
export class IndexRegistry extends WorkspaceIndexAnswers {
  /** In least-recently-used order: a use moves its entry to the end. */
  private readonly entries = new Map<string, Entry>();
  private clock = 0;

  constructor(
    source: IndexSource,
    private readonly maxBytes: number,
    meaning?: Meaning,
  ) {
    super(source, meaning);
  }

  /** The workspaces whose indexes are held, least recently used first (for tests and the bench). */
  held(): { workspace: string; bytes: number }[] {
    return [...this.entries].flatMap(([workspace, entry]) => (entry.index ? [{ workspace, bytes: entry.index.estimatedBytes() }] : []));
  }

  protected async current(workspace: string): Promise<WorkspaceIndex> {
    const arrival = ++this.clock;
    for (;;) {
      const entry = this.entryOf(workspace);
      const inflight = entry.refresh;
      if (inflight && inflight.startedAt > arrival) return this.used(workspace, await inflight.promise);
      if (inflight) {
        await inflight.promise.catch(() => undefined);
        continue;
      }
      const startedAt = ++this.clock;
      const promise = this.refresh(workspace, entry);
      entry.refresh = { startedAt, promise };
      try {
        return this.used(workspace, await promise);
      } finally {
        if (entry.refresh?.startedAt === startedAt) entry.refresh = undefined;
      }
    }
  }

  private entryOf(workspace: string): Entry {
    let entry = this.entries.get(workspace);
    if (!entry) {
      entry = {};
      this.entries.set(workspace, entry);
    }
    return entry;
  }

  private async refresh(workspace: string, entry: Entry): Promise<WorkspaceIndex> {
    const index = entry.index;
    // Vectors are a function of text and model: a rebuilt index keeps those the old one made (src/search/vectors.ts).
    const previous = index;
    // An index built without a generation is never brought current (sameWorkspace): scan at once, one request, not two.
    if (index?.generation !== undefined) {
      const tail = await this.source.tail(workspace, index.position);
      // Rebuilt too when an event arrived late (WorkspaceIndex.accepts): rare, and a scan is the only sound answer.
      if (tail && sameWorkspace(index, tail.registry) && index.accepts(tail.events)) {
        try {
          index.apply(tail.events);
          index.position = tail.position;
          return index;
        } catch (error) {
          entry.index = undefined; // half-applied: never answer from it
          throw error;
        }
      }
      entry.index = undefined; // deleted, re-created, history pruned past it, or an event came late: build again
    }
    const snapshot = await this.source.snapshot(workspace);
    const generation = snapshot.registry.present ? await this.source.claimGeneration(workspace, snapshot.registry) : undefined;
    entry.index = this.buildIndex(snapshot, generation, previous);
    return entry.index;
  }

  /** Marks the workspace most recently used and drops the least recently used indexes past the cap. */
  private used(workspace: string, index: WorkspaceIndex): WorkspaceIndex {
    const entry = this.entries.get(workspace);
    if (entry) {
      this.entries.delete(workspace);
      this.entries.set(workspace, entry);
    }
    let total = 0;
    for (const held of this.entries.values()) total += held.index?.estimatedBytes() ?? 0;
    for (const [name, held] of this.entries) {
      if (total <= this.maxBytes) break;
      if (name === workspace || held.refresh) continue;
      total -= held.index?.estimatedBytes() ?? 0;
      this.entries.delete(name);
    }
    return index;
  }
}

/**
 * Whether the registry row says this is the workspace the index was built on (contracts: the
 * generation). Built at generation G: the row must still carry G. Built with no generation (the
 * workspace had no registry row, or the claim lost to a deletion): nothing can tell a deletion since,
 * since a delete_workspace leaves no event and a re-created row looks like the first one, so such an
 * index answers only the read that built it, and the next read builds again (for a workspace with no
 * row that scan is one request, as the tail read would be; a build that finds the row claims its
 * generation, after which the tail read suffices). Issue #21, defect 2.
 */
function sameWorkspace(index: WorkspaceIndex, registry: RegistryState): boolean {
  return index.generation !== undefined && registry.present && registry.generation === index.generation;
}
