import type { Entity } from "../model/model.js";

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
