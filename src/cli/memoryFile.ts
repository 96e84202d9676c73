import type { TagDefinition, Validity } from "../domain/model/model.js";
import { checkEntityInput, checkRelationInput, type EntityInput, type RelationInput } from "../domain/model/validation.js";
import {
  checkTaggingInput,
  checkTagInput,
  checkValidityLine,
  type Located,
  type TaggingInput,
  type ValidityLine,
} from "../domain/services/importGraph.js";

/**
 * The official memory server's file format (memory.jsonl; the legacy memory.json is the same): one
 * JSON object per line, `{"type":"entity","name","entityType","observations"}` or
 * `{"type":"relation","from","to","relationType"}`. Blank lines are ignored, as it ignores them.
 *
 * Tags have lines of their own, which that server skips (it reads only entity and relation lines), so
 * an export stays loadable there: `{"type":"tag","name","category","description"}` defines a tag,
 * `{"type":"entity_tags","entityName","tagNames"}` tags an entity, and
 * `{"type":"observation_tags","entityName","observation","tagNames"}` one of its observations.
 *
 * Valid time and expiry (docs/history.md#two-times) have no room in that format either, so they too have lines of their own:
 * `{"type":"validity","entityName", "observation"?, "relation"?: {"to","relationType"}, "validFrom"?, "validTo"?,
 * "supersededBy"?, "expiresAt"?, "pinned"?}` gives the times of the entity itself (expiresAt, pinned), of one of its
 * observations, or of one of its outgoing relations. An export writes entity and relation lines with what is true now
 * (what that server should load) and a validity line for everything that has times: a superseded observation or an ended
 * relation is only there, and an import brings it back with its times.
 */
export type ParsedLine =
  | { kind: "entity"; item: Located<EntityInput> }
  | { kind: "relation"; item: Located<RelationInput> }
  | { kind: "tag"; item: Located<TagDefinition> }
  | { kind: "tagging"; item: Located<TaggingInput> }
  | { kind: "validity"; item: Located<ValidityLine> }
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
    if (record.type === "tag") {
      const { name, category = "", description = "" } = record;
      if (typeof name !== "string" || typeof category !== "string" || typeof description !== "string") {
        return { kind: "malformed", reason: "a tag needs a string name, and category and description (when given) as strings" };
      }
      const item = { name, category, description, line };
      checkTagInput(item, "tag");
      return { kind: "tag", item };
    }
    if (record.type === "entity_tags" || record.type === "observation_tags") {
      const onObservation = record.type === "observation_tags";
      const { entityName, observation, tagNames } = record;
      if (typeof entityName !== "string" || !isStringArray(tagNames) || (onObservation && typeof observation !== "string")) {
        const needs = onObservation ? "a string entityName and observation" : "a string entityName";
        return { kind: "malformed", reason: `${record.type} needs ${needs}, and tagNames as an array of strings` };
      }
      const item = { entityName, tagNames, ...(onObservation ? { observation: observation as string } : {}), line };
      checkTaggingInput(item, record.type);
      return { kind: "tagging", item };
    }
    if (record.type === "validity") {
      const { entityName, observation, relation } = record;
      const target = relation as Record<string, unknown> | undefined;
      const times = ["validFrom", "validTo", "supersededBy", "expiresAt"] as const;
      if (
        typeof entityName !== "string" ||
        (observation !== undefined && typeof observation !== "string") ||
        (target !== undefined && (typeof target?.to !== "string" || typeof target?.relationType !== "string")) ||
        times.some((field) => record[field] !== undefined && typeof record[field] !== "string") ||
        (record.pinned !== undefined && typeof record.pinned !== "boolean")
      ) {
        return {
          kind: "malformed",
          reason: "validity needs a string entityName, an optional observation or relation {to, relationType}, and times as strings",
        };
      }
      const validity: Validity = {};
      for (const field of times) if (typeof record[field] === "string") validity[field] = record[field];
      if (record.pinned === true) validity.pinned = true;
      const item: Located<ValidityLine> = {
        entityName,
        ...(observation !== undefined ? { observation } : {}),
        ...(target !== undefined ? { relation: { to: String(target.to), relationType: String(target.relationType) } } : {}),
        validity,
        line,
      };
      checkValidityLine(item, "validity");
      return { kind: "validity", item };
    }
  } catch (error) {
    return { kind: "malformed", reason: error instanceof Error ? error.message : String(error) };
  }
  return typeof record.type === "string" ? { kind: "other", type: record.type } : { kind: "malformed", reason: 'no "type"' };
}

export function entityLine(entity: EntityInput): string {
  return JSON.stringify({ type: "entity", name: entity.name, entityType: entity.entityType, observations: entity.observations });
}

export function relationLine(relation: RelationInput): string {
  return JSON.stringify({ type: "relation", from: relation.from, to: relation.to, relationType: relation.relationType });
}

export function tagLine(tag: TagDefinition): string {
  return JSON.stringify({ type: "tag", name: tag.name, category: tag.category, description: tag.description });
}

/** The tags of an entity (no observation) or of one of its observations. */
export function taggingLine(entityName: string, observation: string | undefined, tagNames: readonly string[]): string {
  return observation === undefined
    ? JSON.stringify({ type: "entity_tags", entityName, tagNames })
    : JSON.stringify({ type: "observation_tags", entityName, observation, tagNames });
}

/** The times of an entity, one of its observations, or one of its outgoing relations. */
export function validityLine(line: ValidityLine): string {
  return JSON.stringify({
    type: "validity",
    entityName: line.entityName,
    ...(line.observation !== undefined ? { observation: line.observation } : {}),
    ...(line.relation ? { relation: line.relation } : {}),
    ...line.validity,
  });
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}
