import type { TableEntityResult } from "@azure/data-tables";
import type { Entity, EntityNode, Metadata, Relation } from "../domain/model.js";
import { byCreation, compareText } from "../domain/order.js";
import type { RowKind } from "./keys.js";

/** Stored shape of each row kind. Metadata is JSON text because Table properties are scalars. */
export interface EntityRow {
  kind: "entity";
  name: string;
  entityType: string;
  metadata: string;
  createdAt: string;
  updatedAt: string;
  /** Sorts entities in the order they were added (absent on rows written before it existed). */
  order?: string;
}

export interface ObservationRow {
  kind: "observation";
  entityId: string;
  content: string;
  /** Sorts observations in the order they were added (row keys are hashes). */
  order: string;
  createdAt: string;
}

/** The canonical relation row and both edge rows carry the same fields. */
export interface RelationRow {
  kind: "relation" | "edge-in" | "edge-out";
  relationId: string;
  relationType: string;
  fromId: string;
  fromName: string;
  toId: string;
  toName: string;
  metadata: string;
  createdAt: string;
  updatedAt: string;
  order?: string;
}

export type AnyRow = (EntityRow | ObservationRow | RelationRow) & { rowKey: string; etag: string };
export type StoredRow = TableEntityResult<Record<string, unknown>>;

export function kindOf(row: StoredRow): RowKind | undefined {
  return typeof row.kind === "string" ? (row.kind as RowKind) : undefined;
}

export function parseMetadata(text: unknown): Metadata {
  if (typeof text !== "string" || text === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Metadata) : {};
  } catch {
    return {};
  }
}

const text = (value: unknown): string => (typeof value === "string" ? value : "");


export function toEntity(row: StoredRow, observations: string[]): Entity {
  return {
    id: text(row.rowKey),
    name: text(row.name),
    entityType: text(row.entityType),
    observations,
    metadata: parseMetadata(row.metadata),
    createdAt: text(row.createdAt),
    updatedAt: text(row.updatedAt),
    order: text(row.order) || text(row.createdAt),
  };
}

export function toRelation(row: StoredRow): Relation {
  return {
    id: text(row.relationId),
    fromEntityId: text(row.fromId),
    fromName: text(row.fromName),
    toEntityId: text(row.toId),
    toName: text(row.toName),
    relationType: text(row.relationType),
    metadata: parseMetadata(row.metadata),
    createdAt: text(row.createdAt),
    updatedAt: text(row.updatedAt),
    order: text(row.order) || text(row.createdAt),
  };
}

/** Observation rows of one entity, in the order they were added. */
export function orderedObservations(rows: StoredRow[]): string[] {
  return rows
    .slice()
    .sort((a, b) => compareText(text(a.order), text(b.order)) || compareText(text(a.rowKey), text(b.rowKey)))
    .map((row) => text(row.content));
}

/**
 * The rows of one entity's key range (any order) as the entity with its observations in the order
 * they were added, and the relations of its edge rows (a self-relation's two edges count once).
 * Undefined when the entity row is absent (rows left behind by an interrupted delete are not an entity).
 */
export function assembleEntity(rows: readonly StoredRow[]): EntityNode | undefined {
  const head = rows.find((row) => kindOf(row) === "entity");
  if (!head) return undefined;
  const observations = rows.filter((row) => kindOf(row) === "observation");
  const relations = new Map<string, Relation>();
  for (const row of rows) {
    const kind = kindOf(row);
    if (kind === "edge-in" || kind === "edge-out") relations.set(text(row.relationId), toRelation(row));
  }
  return { entity: toEntity(head, orderedObservations(observations)), relations: [...relations.values()].sort(byCreation) };
}
