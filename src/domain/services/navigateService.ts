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

/**
 * The navigate toolset (docs/navigate.md): neighbourhoods and paths, walked on the GraphIndex's
 * traversal port: the kept index brought current once (one request for the whole walk), or, on the
 * scanning index, one storage range read per entity. The walks themselves are rules (navigation.ts).
 */
export class NavigateService {
  constructor(private readonly index: Pick<GraphIndex, "traversal">) {}

  /** The neighbourhood of one entity (docs/navigate.md#get_neighbors); see navigation.ts for its cost. */
  async getNeighbors(workspace: string, ref: EntityRef, options: NeighborRequest): Promise<Neighborhood> {
    const id = idOf(workspace, ref, { id: "entityId", name: "entityName" });
    const request = checkNeighborRequest(options);
    return neighbors(await this.index.traversal(workspace), workspace, { id, label: ref.name ?? id }, request);
  }

  /** The shortest path between two entities (docs/navigate.md#find_path). */
  async findPath(workspace: string, from: EntityRef, to: EntityRef, options: PathRequest): Promise<PathResult> {
    const fromId = idOf(workspace, from, { id: "fromEntityId", name: "from", role: "the start entity" });
    const toId = idOf(workspace, to, { id: "toEntityId", name: "to", role: "the end entity" });
    const request = checkPathRequest(options);
    checkDistinctEnds(fromId, toId);
    return shortestPath(
      await this.index.traversal(workspace),
      workspace,
      { id: fromId, label: from.name ?? fromId },
      { id: toId, label: to.name ?? toId },
      request,
    );
  }
}
