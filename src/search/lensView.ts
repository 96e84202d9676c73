import type { FoldedEntity } from "../domain/feed/fold.js";
import type { Direction, Entity, EntityNode, Relation } from "../domain/model/model.js";
import type { TraversalPort } from "../domain/rules/navigation.js";
import { entityShows, entityThroughLens, relationShows, type TimeLens } from "../domain/rules/validity.js";

/**
 * The index's reads seen through a TimeLens (docs/history.md#two-times). Expiry is judged at read time (nothing happens at
 * `expiresAt`), so every answer asks again; an entity with no expiry and no observation validity, read without `validAt`,
 * shows whole, and these checks cost one property test for it (most workspaces hold nothing else).
 */

/** Whether a held entity shows (is not expired); undefined lens: everything held shows. */
export const itemShows = (item: Pick<FoldedEntity, "expiresAt" | "pinned">, lens: TimeLens | undefined): boolean =>
  lens === undefined || item.expiresAt === undefined || entityShows(item, lens);

/** Whether every observation of a shown entity shows through the lens, without looking at each. */
export const showsWhole = (item: Pick<FoldedEntity, "observationValidity">, lens: TimeLens | undefined): boolean =>
  lens === undefined || (item.observationValidity === undefined && lens.validAt === undefined);

/** A relation shows when it does itself and both its ends do. */
export function relationVisible(relation: Relation, lens: TimeLens | undefined, endShows: (entityId: string) => boolean): boolean {
  if (lens === undefined) return true;
  const timed =
    relation.validFrom !== undefined || relation.validTo !== undefined || relation.expiresAt !== undefined || lens.validAt !== undefined;
  return (!timed || relationShows(relation, lens)) && endShows(relation.fromEntityId) && endShows(relation.toEntityId);
}

/** An entity as a read returns it through the lens (undefined when hidden); undefined lens: as held. */
export const entityThrough = (entity: Entity, lens: TimeLens | undefined): Entity | undefined =>
  lens === undefined ? entity : entityThroughLens(entity, lens);

/**
 * A traversal port seen through the lens: hidden entities read as absent, shown ones lose their hidden observations, and
 * only relations that show, to entities that show, are followed. `endShows` says whether a relation's far end shows where
 * the port knows it (the index); a walk over storage (the scanning adapter) learns it when it reads that end, which reads
 * as absent, so a walk never reaches it and a path never crosses it.
 */
export function traversalThroughLens(
  port: TraversalPort,
  lens: TimeLens | undefined,
  endShows: (entityId: string) => boolean = () => true,
): TraversalPort {
  if (lens === undefined) return port;
  const through = (node: EntityNode | undefined): EntityNode | undefined => {
    if (!node) return undefined;
    const entity = entityThroughLens(node.entity, lens);
    if (!entity) return undefined;
    const relations = node.relations.filter((relation) => relationVisible(relation, lens, endShows));
    return { entity, relations };
  };
  return {
    nodes: async (workspace, ids) => (await port.nodes(workspace, ids)).map(through),
    edges: async (workspace, ids, direction: Direction) => (await port.edges(workspace, ids, direction)).map(through),
  };
}
