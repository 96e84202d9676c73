import type { Entity, EntityNode } from "../model/model.js";
import { byCreation } from "../model/order.js";

/** An entity's searchable text, lower-cased. */
export interface SearchText {
  name: string;
  entityType: string;
  observations: readonly string[];
}

/**
 * search_nodes' rule: a case-insensitive substring match over name, entityType and observations
 * (as the official memory server matches), ranked name before type before observation. Lower is better;
 * undefined means no match. `text` and `needle` are lower-cased already.
 */
export function substringRank(text: SearchText, needle: string): number | undefined {
  if (text.name.includes(needle)) return 0;
  if (text.entityType.includes(needle)) return 1;
  if (text.observations.some((content) => content.includes(needle))) return 2;
  return undefined;
}

export const searchTextOf = (entity: Pick<Entity, "name" | "entityType" | "observations">): SearchText => ({
  name: entity.name.toLowerCase(),
  entityType: entity.entityType.toLowerCase(),
  observations: entity.observations.map((content) => content.toLowerCase()),
});

const searchRank = (entity: Entity, query: string): number | undefined => substringRank(searchTextOf(entity), query.toLowerCase());

interface Ranked {
  rank: number;
  node: EntityNode;
}

const better = (a: Ranked, b: Ranked): number => a.rank - b.rank || byCreation(a.node.entity, b.node.entity);

/** The best `limit` matches of a stream, holding at most about 2 × limit of them at a time. */
export async function topMatches(nodes: AsyncIterable<EntityNode>, query: string, limit: number): Promise<EntityNode[]> {
  let kept: Ranked[] = [];
  for await (const node of nodes) {
    const rank = searchRank(node.entity, query);
    if (rank === undefined) continue;
    kept.push({ rank, node });
    if (kept.length >= 2 * limit) kept = kept.sort(better).slice(0, limit);
  }
  return kept
    .sort(better)
    .slice(0, limit)
    .map((ranked) => ranked.node);
}
