import type { FoldedEntity, GraphFold } from "../domain/feed/fold.js";
import type { TagUsage } from "../domain/model/model.js";
import { compareText } from "../domain/model/order.js";
import type { GraphStats } from "../domain/ports/graphIndex.js";

/** The whole-workspace tallies the index answers from the fold it holds (get_stats, get_tag_usage). */

/** How many entities get_stats lists as the most connected. */
const MOST_CONNECTED = 10;

/** The tags an entity carries, on itself or on one of its observations. */
export function tagsCarriedBy(entity: FoldedEntity): Set<string> {
  const carried = new Set(entity.tags);
  for (const tags of entity.observationTags?.values() ?? []) for (const tag of tags) carried.add(tag);
  return carried;
}

/** Every tag definition, and every tag carried without one, with how many entities and observations carry it. */
export function tagUsageOf(graph: GraphFold): TagUsage[] {
  const usage = new Map<string, TagUsage>(
    [...graph.definitions.values()].map((tag) => [tag.name, { ...tag, entities: 0, observations: 0 }]),
  );
  const count = (name: string, field: "entities" | "observations") => {
    const counts = usage.get(name) ?? { name, category: "", description: "", entities: 0, observations: 0 };
    counts[field] += 1;
    usage.set(name, counts);
  };
  for (const entity of graph.entities.values()) {
    for (const tag of entity.tags) count(tag, "entities");
    for (const tags of entity.observationTags?.values() ?? []) for (const tag of tags) count(tag, "observations");
  }
  return [...usage.values()];
}

/** get_stats over the fold; the first and last write times are the index's own (it notes them as it builds and applies). */
export function statsOf(graph: GraphFold, writes: { firstWriteAt: string | undefined; lastWriteAt: string | undefined }): GraphStats {
  const entityTypes = new Map<string, number>();
  const relationTypes = new Map<string, number>();
  const writers = new Map<string, number>();
  const wrote = (principal: string | undefined) => principal !== undefined && writers.set(principal, (writers.get(principal) ?? 0) + 1);
  let observations = 0;
  const tags = new Set(graph.definitions.keys());
  for (const entity of graph.entities.values()) {
    entityTypes.set(entity.entityType, (entityTypes.get(entity.entityType) ?? 0) + 1);
    observations += entity.observations.size;
    for (const tag of tagsCarriedBy(entity)) tags.add(tag);
    wroteItem(entity, wrote);
  }
  for (const relation of graph.relations.values()) {
    relationTypes.set(relation.relationType, (relationTypes.get(relation.relationType) ?? 0) + 1);
    wroteItem(relation, wrote);
  }
  const mostConnected = [...graph.entities.values()]
    .map((entity) => ({ id: entity.id, name: entity.name, entityType: entity.entityType, degree: graph.degree(entity.id) }))
    .filter((entry) => entry.degree > 0)
    .sort((a, b) => b.degree - a.degree || compareText(a.name, b.name))
    .slice(0, MOST_CONNECTED);
  const counted = <K extends string>(counts: Map<string, number>, key: K) =>
    [...counts]
      .sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]))
      .map(([value, count]) => ({ [key]: value, count }) as Record<K, string> & { count: number });
  return {
    entities: graph.entities.size,
    relations: graph.relations.size,
    observations,
    tags: tags.size,
    entityTypes: counted(entityTypes, "entityType"),
    relationTypes: counted(relationTypes, "relationType"),
    mostConnected,
    writesByPrincipal: [...writers]
      .sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]))
      .map(([principal, count]) => ({ principal, writes: count })),
    ...(writes.firstWriteAt !== undefined ? { firstWriteAt: writes.firstWriteAt } : {}),
    ...(writes.lastWriteAt !== undefined ? { lastWriteAt: writes.lastWriteAt } : {}),
  };
}

/** An entity or relation counts once for who created it, and once more for who last changed it after. */
function wroteItem(
  item: { createdBy?: string; updatedBy?: string; createdAt: string; updatedAt: string },
  wrote: (principal: string | undefined) => unknown,
): void {
  wrote(item.createdBy);
  if (item.updatedAt > item.createdAt) wrote(item.updatedBy);
}
