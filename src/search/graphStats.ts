import type { FoldedEntity, GraphFold } from "../domain/feed/fold.js";
import type { TagUsage, Validity } from "../domain/model/model.js";
import { compareText } from "../domain/model/order.js";
import type { GraphStats } from "../domain/ports/graphIndex.js";
import { isExpired, relationStatus, statusOf, type TimeLens } from "../domain/rules/validity.js";
import { itemShows, relationVisible, showsWhole } from "./lensView.js";

/** The whole-workspace tallies the index answers from the fold it holds (get_stats, get_tag_usage). */

/** How many entities get_stats lists as the most connected. */
const MOST_CONNECTED = 10;

/** The tags an entity carries, on itself or on one of its observations. */
export function tagsCarriedBy(entity: FoldedEntity): Set<string> {
  const carried = new Set(entity.tags);
  for (const tags of entity.observationTags?.values() ?? []) for (const tag of tags) carried.add(tag);
  return carried;
}

/**
 * The observation keys of a shown entity that show through the lens, or undefined when all of them do (the fast path).
 * Uses the statuses of docs/history.md#two-times: with `validAt`, an observation without its own validFrom holds from the
 * entity's creation (the fold keeps no per-observation write time).
 */
export function shownObservationKeys(item: FoldedEntity, lens: TimeLens | undefined): Set<string> | undefined {
  if (showsWhole(item, lens)) return undefined;
  const shown = new Set<string>();
  for (const key of item.observations.keys()) if (observationShows(item, key, lens!)) shown.add(key);
  return shown;
}

function observationShows(item: FoldedEntity, key: string, lens: TimeLens): boolean {
  const status = statusOf(writtenFrom(item.observationValidity?.get(key), item, lens), lens);
  return status === "current" || (lens.includeSuperseded && status !== "expired");
}

const writtenFrom = (validity: Validity | undefined, item: FoldedEntity, lens: TimeLens): Validity | undefined =>
  lens.validAt === undefined || validity?.validFrom ? validity : { ...validity, validFrom: item.createdAt };

/** Every tag definition, and every tag carried without one, with how many entities and observations carry it (through `lens`: that show). */
export function tagUsageOf(graph: GraphFold, lens?: TimeLens): TagUsage[] {
  const usage = new Map<string, TagUsage>(
    [...graph.definitions.values()].map((tag) => [tag.name, { ...tag, entities: 0, observations: 0 }]),
  );
  const count = (name: string, field: "entities" | "observations") => {
    const counts = usage.get(name) ?? { name, category: "", description: "", entities: 0, observations: 0 };
    counts[field] += 1;
    usage.set(name, counts);
  };
  for (const entity of graph.entities.values()) {
    if (!itemShows(entity, lens)) continue;
    for (const tag of entity.tags) count(tag, "entities");
    const shown = shownObservationKeys(entity, lens);
    for (const [key, tags] of entity.observationTags ?? []) {
      if (!shown || shown.has(key)) for (const tag of tags) count(tag, "observations");
    }
  }
  return [...usage.values()];
}

/**
 * get_stats over the fold; the first and last write times are the index's own (it notes them as it builds and applies).
 * Through `lens`, only what shows is counted (entities, observations, relations, types, degrees, tags carried), and
 * `superseded`, `expiring` and `expired` say how many held facts are not current, will expire, or have (present when any).
 */
export function statsOf(
  graph: GraphFold,
  writes: { firstWriteAt: string | undefined; lastWriteAt: string | undefined },
  lens?: TimeLens,
): GraphStats {
  const entityTypes = new Map<string, number>();
  const relationTypes = new Map<string, number>();
  const writers = new Map<string, number>();
  const wrote = (principal: string | undefined) => principal !== undefined && writers.set(principal, (writers.get(principal) ?? 0) + 1);
  let observations = 0;
  let entities = 0;
  let relations = 0;
  const time = { superseded: 0, expiring: 0, expired: 0 };
  // Only what carries an expiry is judged for it: expiring (shows, expiry ahead, not pinned) or expired.
  const noteExpiry = (validity: Pick<Validity, "expiresAt" | "pinned"> | undefined) => {
    if (!lens || !validity?.expiresAt || validity.pinned) return;
    if (isExpired(validity, lens.heldAt)) time.expired += 1;
    else time.expiring += 1;
  };
  const tags = new Set(graph.definitions.keys());
  const entityShown = (id: string) => {
    const entity = graph.entities.get(id);
    return entity !== undefined && itemShows(entity, lens);
  };
  for (const entity of graph.entities.values()) {
    noteExpiry(entity);
    if (!itemShows(entity, lens)) continue;
    entities += 1;
    entityTypes.set(entity.entityType, (entityTypes.get(entity.entityType) ?? 0) + 1);
    const shown = shownObservationKeys(entity, lens);
    observations += shown ? shown.size : entity.observations.size;
    if (lens && entity.observationValidity) {
      for (const validity of entity.observationValidity.values()) {
        noteExpiry(validity);
        const status = statusOf(writtenFrom(validity, entity, lens), lens);
        if (status !== "current" && status !== "expired") time.superseded += 1;
      }
    }
    for (const tag of entity.tags) tags.add(tag);
    for (const [key, carried] of entity.observationTags ?? []) if (!shown || shown.has(key)) for (const tag of carried) tags.add(tag);
    wroteItem(entity, wrote);
  }
  const degree = new Map<string, number>();
  for (const relation of graph.relations.values()) {
    if (
      lens &&
      (relation.expiresAt !== undefined || relation.validTo !== undefined || relation.validFrom !== undefined || lens.validAt !== undefined)
    ) {
      noteExpiry(relation);
      const status = relationStatus(relation, lens);
      if (status !== "current" && status !== "expired") time.superseded += 1;
    }
    if (!relationVisible(relation, lens, entityShown)) continue;
    relations += 1;
    for (const end of new Set([relation.fromEntityId, relation.toEntityId])) degree.set(end, (degree.get(end) ?? 0) + 1);
    relationTypes.set(relation.relationType, (relationTypes.get(relation.relationType) ?? 0) + 1);
    wroteItem(relation, wrote);
  }
  const degreeOf = (id: string) => (lens ? (degree.get(id) ?? 0) : graph.degree(id));
  const mostConnected = [...graph.entities.values()]
    .filter((entity) => itemShows(entity, lens))
    .map((entity) => ({ id: entity.id, name: entity.name, entityType: entity.entityType, degree: degreeOf(entity.id) }))
    .filter((entry) => entry.degree > 0)
    .sort((a, b) => b.degree - a.degree || compareText(a.name, b.name))
    .slice(0, MOST_CONNECTED);
  const counted = <K extends string>(counts: Map<string, number>, key: K) =>
    [...counts]
      .sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]))
      .map(([value, count]) => ({ [key]: value, count }) as Record<K, string> & { count: number });
  return {
    entities,
    relations,
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
    ...(time.superseded > 0 ? { superseded: time.superseded } : {}),
    ...(time.expiring > 0 ? { expiring: time.expiring } : {}),
    ...(time.expired > 0 ? { expired: time.expired } : {}),
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
