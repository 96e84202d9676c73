import type { Located } from "../domain/importGraph.js";
import { checkEntityInput, checkRelationInput, type EntityInput, type RelationInput } from "../domain/validation.js";

/**
 * The official memory server's file format (memory.jsonl; the legacy memory.json is the same): one
 * JSON object per line, `{"type":"entity","name","entityType","observations"}` or
 * `{"type":"relation","from","to","relationType"}`. Blank lines are ignored, as it ignores them.
 */
export type ParsedLine =
  | { kind: "entity"; item: Located<EntityInput> }
  | { kind: "relation"; item: Located<RelationInput> }
  | { kind: "blank" }
  /** A line of another type (later versions add some); server-memory ignores these too. */
  | { kind: "other"; type: string }
  | { kind: "malformed"; reason: string };

export function parseLine(text: string, line: number): ParsedLine {
  if (text.trim() === "") return { kind: "blank" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "malformed", reason: "not valid JSON" };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { kind: "malformed", reason: "not a JSON object" };
  const record = value as Record<string, unknown>;
  try {
    if (record.type === "entity") {
      const observations = record.observations ?? [];
      if (typeof record.name !== "string" || typeof record.entityType !== "string" || !isStringArray(observations)) {
        return { kind: "malformed", reason: "an entity needs a string name and entityType, and observations as an array of strings" };
      }
      const item = { name: record.name, entityType: record.entityType, observations, line };
      checkEntityInput(item, "entity");
      return { kind: "entity", item };
    }
    if (record.type === "relation") {
      if (typeof record.from !== "string" || typeof record.to !== "string" || typeof record.relationType !== "string") {
        return { kind: "malformed", reason: "a relation needs string from, to and relationType" };
      }
      const item = { from: record.from, to: record.to, relationType: record.relationType, line };
      checkRelationInput(item, "relation");
      return { kind: "relation", item };
    }
  } catch (error) {
    return { kind: "malformed", reason: error instanceof Error ? error.message : String(error) };
  }
  return typeof record.type === "string" ? { kind: "other", type: record.type } : { kind: "malformed", reason: "no \"type\"" };
}

export function entityLine(entity: EntityInput): string {
  return JSON.stringify({ type: "entity", name: entity.name, entityType: entity.entityType, observations: entity.observations });
}

export function relationLine(relation: RelationInput): string {
  return JSON.stringify({ type: "relation", from: relation.from, to: relation.to, relationType: relation.relationType });
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}
