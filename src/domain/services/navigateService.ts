import type { GraphIndex } from "../ports/graphIndex.js";
import { type EntityRef, idOf } from "../rules/entityRef.js";
import {
  checkDistinctEnds,
  checkNeighborRequest,
  checkPathRequest,
  type Neighborhood,
  type NeighborRequest,
  neighbors,
  type PathRequest,
  type PathResult,
  shortestPath,
} from "../rules/navigation.js";
import { lensOf, type TimeLens } from "../rules/validity.js";

/** What a walk asks of valid time (docs/history.md#two-times): default, true now. */
export interface WalkLens {
  validAt?: string;
  includeSuperseded?: boolean;
}

/**
 * The navigate toolset (docs/navigate.md): neighbourhoods and paths, walked on the GraphIndex's
 * traversal port: the kept index brought current once (one request for the whole walk), or, on the
 * scanning index, one storage range read per entity. The walks themselves are rules (navigation.ts).
 */
export class NavigateService {
  constructor(
    private readonly index: Pick<GraphIndex, "traversal">,
    /** Now, in ms: what "true now" and an expiry are judged against. */
    private readonly clock: () => number = Date.now,
  ) {}

  /** The walk's lens, checked. */
  lens(input: WalkLens): TimeLens {
    return lensOf(input, this.clock());
  }

  /**
   * The neighbourhood of one entity (docs/navigate.md#get_neighbors); see navigation.ts for its cost. Through `lens` the walk
   * follows only relations that show, to entities that show (docs/history.md#two-times).
   */
  async getNeighbors(workspace: string, ref: EntityRef, options: NeighborRequest, lens: TimeLens = this.lens({})): Promise<Neighborhood> {
    const id = idOf(workspace, ref, { id: "entityId", name: "entityName" });
    const request = checkNeighborRequest(options);
    return neighbors(await this.index.traversal(workspace, lens), workspace, { id, label: ref.name ?? id }, request);
  }

  /** The shortest path between two entities (docs/navigate.md#find_path), over what shows through `lens` only. */
  async findPath(
    workspace: string,
    from: EntityRef,
    to: EntityRef,
    options: PathRequest,
    lens: TimeLens = this.lens({}),
  ): Promise<PathResult> {
    const fromId = idOf(workspace, from, { id: "fromEntityId", name: "from", role: "the start entity" });
    const toId = idOf(workspace, to, { id: "toEntityId", name: "to", role: "the end entity" });
    const request = checkPathRequest(options);
    checkDistinctEnds(fromId, toId);
    return shortestPath(
      await this.index.traversal(workspace, lens),
      workspace,
      { id: fromId, label: from.name ?? fromId },
      { id: toId, label: to.name ?? toId },
      request,
    );
  }
}
