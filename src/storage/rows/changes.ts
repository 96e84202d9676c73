import type { Change, EntityState, RelationState } from "../../domain/feed/history.js";
import type { Metadata } from "../../domain/model/model.js";
import type { RelationWrite } from "../../domain/ports/store.js";
import { kindOf, parseMetadata, relationFieldsOf, type StoredRow, text } from "./rows.js";

type Fields = Record<string, unknown>;

/** The changes events record (domain/feed/history.ts), built from the rows a write writes or read before deleting. */

export function entityStateOf(row: Fields): EntityState {
  return { name: text(row.name), entityType: text(row.entityType), metadata: parseMetadata(row.metadata), ...versionField(row) };
}

export function relationStateOf(row: Fields): RelationState {
  return { ...relationFieldsOf(row), ...versionField(row) };
}

const versionField = (row: Fields): { version?: string } => (typeof row.version === "string" ? { version: row.version } : {});

export function relationStateOfWrite(write: RelationWrite, metadata: Metadata, version: string): RelationState {
  return {
    version,
    fromEntityId: write.fromEntityId,
    fromName: write.fromName,
    toEntityId: write.toEntityId,
    toName: write.toName,
    relationType: write.relationType,
    metadata,
  };
}

export function observationCreated(entityId: string, entityName: string, row: { rowKey: string; content?: unknown }): Change {
  return { kind: "observation.created", entityId, entityName, observationId: observationIdOf(row.rowKey), content: text(row.content) };
}

/** The observation id in an observation row's key ({entityId}~o~{observationId}). */
function observationIdOf(key: string): string {
  return key.slice(key.lastIndexOf("~") + 1);
}

/**
 * What deleting a row (read before the delete) changes, with its before-image: an observation, a
 * relation (any of its three rows), or a tag link (either of its two rows). `names` gives entity names
 * by id, for rows that do not carry them (observations).
 */
export function deletionOf(row: StoredRow, names: ReadonlyMap<string, string>): Change | undefined {
  const kind = kindOf(row);
  switch (kind) {
    case "observation": {
      const entityId = text(row.entityId);
      return {
        kind: "observation.deleted",
        entityId,
        entityName: names.get(entityId) ?? "",
        observationId: observationIdOf(text(row.rowKey)),
        content: text(row.content),
      };
    }
    case "relation":
    case "edge-in":
    case "edge-out":
      return { kind: "relation.deleted", relationId: text(row.relationId), before: relationStateOf(row) };
    case "entity-tag":
    case "observation-tag":
    case "tag-index": {
      const observationId = text(row.observationId);
      return {
        kind: "tag.deleted",
        entityId: text(row.entityId),
        entityName: text(row.entityName),
        ...(observationId ? { observationId } : {}),
        tagName: text(row.tagName),
      };
    }
    default:
      return undefined;
  }
}

/** Entity names by id, from the entity rows among these. */
export function entityNames(rows: readonly StoredRow[]): Map<string, string> {
  return new Map(rows.filter((row) => kindOf(row) === "entity").map((row) => [text(row.rowKey), text(row.name)]));
}
