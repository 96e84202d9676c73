import type { TableEntityResult } from "@azure/data-tables";

import type { Entity, EntityNode, Metadata, Relation, TagDefinition, Validity } from "../../domain/model/model.js";
import { byCreation, compareText } from "../../domain/model/order.js";
import { heldValidity } from "../../domain/rules/validity.js";
import { rowKey, type RowKind, tagLinkKeys, type TagTarget } from "./keys.js";

/** Stored shape of each row kind. Metadata is JSON text because Table properties are scalars. */
export interface EntityRow {
  kind: "entity";
  name: string;
  entityType: string;
  metadata: string;
  createdAt: string;
  updatedAt: string;
  /** The actor who created the row, and who last changed it (absent on rows written before they were recorded). */
  createdBy?: string;
  updatedBy?: string;
  /** Sorts entities in the order they were added (absent on rows written before it existed). */
  order?: string;
  /** The version of the row's own fields (storage/rows/versions.ts; absent on rows written before versions). */
  version?: string;
  /** Expiry and pin (VALIDITY_COLUMNS; "" and false mean unset). */
  expiresAt?: string;
  pinned?: boolean;
}

/**
 * The columns of valid time and expiry (Validity), on observation rows, relation rows (all three) and, expiresAt and pinned
 * only, entity rows. A write merges a validity patch onto a row as it is: "" and `pinned: false` clear a field.
 */
export const VALIDITY_COLUMNS = ["validFrom", "validTo", "supersededBy", "expiresAt", "pinned"] as const;

export interface ObservationRow extends Validity {
  kind: "observation";
  entityId: string;
  content: string;
  /** Sorts observations in the order they were added (row keys are hashes). */
  order: string;
  createdAt: string;
  createdBy?: string;
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
  createdBy?: string;
  updatedBy?: string;
  order?: string;
  version?: string;
  validFrom?: string;
  validTo?: string;
  expiresAt?: string;
  pinned?: boolean;
}

/**
 * A tag on an entity ("entity-tag", in the entity's range) or on an observation ("observation-tag",
 * under the observation), and its index row ("tag-index", in the tag's index range). The name is
 * copied in, so reading an entity needs no tag definitions (a tag's name never changes: its id is
 * derived from it), and so is the entity's name, so the index can be listed by name.
 */
export interface TagLinkRow {
  kind: "entity-tag" | "observation-tag" | "tag-index";
  tagId: string;
  tagName: string;
  entityId: string;
  entityName: string;
  /** Present when the tag is on an observation. */
  observationId?: string;
  createdAt: string;
}

/**
 * A tag definition. Tagging creates it with a merge of `kind` and `name` only (so a definition written
 * meanwhile keeps its category and description); absent properties read as empty. define_tag sets the
 * rest, and `updatedAt` records when it last did.
 */
export interface TagRow {
  kind: "tag";
  name: string;
  category?: string;
  description?: string;
  updatedAt?: string;
}

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

/** A row property that should be text, or "" when it is absent or not text. */
export const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** A row's valid time and expiry (VALIDITY_COLUMNS), or undefined when it has none. */
export function validityOfRow(row: Record<string, unknown>): Validity | undefined {
  return heldValidity({
    validFrom: text(row.validFrom),
    validTo: text(row.validTo),
    supersededBy: text(row.supersededBy),
    expiresAt: text(row.expiresAt),
    pinned: row.pinned === true,
  });
}

/** createdBy and updatedBy, each present only when the row records it, and the version when the read took it. */
function authorship(row: StoredRow): { createdBy?: string; updatedBy?: string; version?: string } {
  return {
    ...(typeof row.createdBy === "string" ? { createdBy: row.createdBy } : {}),
    ...(typeof row.updatedBy === "string" ? { updatedBy: row.updatedBy } : {}),
    ...(typeof row.version === "string" ? { version: row.version } : {}),
  };
}

function toEntity(
  row: StoredRow,
  observations: string[],
  tags: Pick<Entity, "tags" | "observationTags">,
  observationValidity: ReadonlyMap<string, Validity> | undefined,
): Entity {
  const own = validityOfRow(row);
  return {
    id: text(row.rowKey),
    name: text(row.name),
    entityType: text(row.entityType),
    observations,
    ...tags,
    metadata: parseMetadata(row.metadata),
    createdAt: text(row.createdAt),
    updatedAt: text(row.updatedAt),
    ...authorship(row),
    order: text(row.order) || text(row.createdAt),
    ...(observationValidity && observationValidity.size > 0 ? { observationValidity } : {}),
    ...(own?.expiresAt ? { expiresAt: own.expiresAt } : {}),
    ...(own?.pinned ? { pinned: true } : {}),
  };
}

/** A relation's own fields as its rows store them (the change feed records these too). */
export function relationFieldsOf(
  row: Record<string, unknown>,
): Omit<Relation, "id" | "createdAt" | "updatedAt" | "createdBy" | "updatedBy" | "order" | "version"> {
  return {
    fromEntityId: text(row.fromId),
    fromName: text(row.fromName),
    toEntityId: text(row.toId),
    toName: text(row.toName),
    relationType: text(row.relationType),
    metadata: parseMetadata(row.metadata),
  };
}

function toRelation(row: StoredRow): Relation {
  const validity = validityOfRow(row);
  return {
    id: text(row.relationId),
    ...relationFieldsOf(row),
    createdAt: text(row.createdAt),
    updatedAt: text(row.updatedAt),
    ...authorship(row),
    order: text(row.order) || text(row.createdAt),
    ...(validity?.validFrom ? { validFrom: validity.validFrom } : {}),
    ...(validity?.validTo ? { validTo: validity.validTo } : {}),
    ...(validity?.expiresAt ? { expiresAt: validity.expiresAt } : {}),
    ...(validity?.pinned ? { pinned: true } : {}),
  };
}

const TAG_KINDS: ReadonlySet<RowKind | undefined> = new Set(["entity-tag", "observation-tag", "tag-index"]);

/** For a tag link or index row: the keys of the pair it belongs to (link and index), which are deleted together. */
export function tagPairOf(row: StoredRow): { link: string; index: string } | undefined {
  if (!TAG_KINDS.has(kindOf(row))) return undefined;
  const observationId = text(row.observationId);
  const target: TagTarget = { entityId: text(row.entityId), ...(observationId ? { observationId } : {}) };
  return tagLinkKeys(target, text(row.tagId));
}

export function toTagDefinition(row: StoredRow): TagDefinition {
  return { name: text(row.name), category: text(row.category), description: text(row.description) };
}

/** Observation rows of one entity, in the order they were added. */
function orderedObservations(rows: StoredRow[]): string[] {
  return rows
    .slice()
    .sort((a, b) => compareText(text(a.order), text(b.order)) || compareText(text(a.rowKey), text(b.rowKey)))
    .map((row) => text(row.content));
}

/** The entity's own tag names, and each tagged observation's tag names by content, all sorted. */
function tagsOf(
  entityId: string,
  rows: readonly StoredRow[],
  observations: readonly StoredRow[],
): Pick<Entity, "tags" | "observationTags"> {
  const sorted = (names: string[]) => names.sort(compareText);
  const tags = sorted(rows.filter((row) => kindOf(row) === "entity-tag").map((row) => text(row.tagName)));
  const contentByKey = new Map(observations.map((row) => [text(row.rowKey), text(row.content)]));
  const observationTags = new Map<string, string[]>();
  for (const row of rows) {
    if (kindOf(row) !== "observation-tag") continue;
    const content = contentByKey.get(rowKey.observation(entityId, text(row.observationId)));
    if (content === undefined) continue; // its observation was not read (or is being deleted)
    observationTags.set(content, [...(observationTags.get(content) ?? []), text(row.tagName)]);
  }
  for (const names of observationTags.values()) sorted(names);
  return { tags, observationTags };
}

/**
 * The rows of one entity's key range (any order) as the entity with its observations in the order
 * they were added and its tags, and the relations of its edge rows (a self-relation's two edges count once).
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
  const entityId = text(head.rowKey);
  let observationValidity: Map<string, Validity> | undefined;
  for (const row of observations) {
    const validity = validityOfRow(row);
    if (validity) (observationValidity ??= new Map()).set(text(row.content), validity);
  }
  return {
    entity: toEntity(head, orderedObservations(observations), tagsOf(entityId, rows, observations), observationValidity),
    relations: [...relations.values()].sort(byCreation),
  };
}
