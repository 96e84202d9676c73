import type { TableEntityResult } from "@azure/data-tables";
import type { Entity, Metadata, Relation } from "../domain/model.js";
import type { RowKind } from "./keys.js";

/** Stored shape of each row kind. Metadata is JSON text because Table properties are scalars. */
export interface EntityRow {
  kind: "entity";
  name: string;
  entityType: string;
  metadata: string;
  createdAt: string;
  updatedAt: string;
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

/** Ordinal comparison: keys and ISO timestamps must not be sorted by locale rules. */
export const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function toEntity(row: StoredRow, observations: string[]): Entity {
  return {
    id: text(row.rowKey),
    name: text(row.name),
    entityType: text(row.entityType),
    observations,
    metadata: parseMetadata(row.metadata),
    createdAt: text(row.createdAt),
    updatedAt: text(row.updatedAt),
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
  };
}

/** Observation rows of one entity, in the order they were added. */
export function orderedObservations(rows: StoredRow[]): string[] {
  return rows
    .slice()
    .sort((a, b) => compareText(text(a.order), text(b.order)) || compareText(text(a.rowKey), text(b.rowKey)))
    .map((row) => text(row.content));
}
