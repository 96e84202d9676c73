/**
 * The one place that knows the row-key layout (design §3). PartitionKey is the workspace name.
 * Every key is built from GUIDs and fixed markers, never from user text, so characters Table
 * Storage forbids in keys can never reach one.
 *
 *   {entityId}                      entity
 *   {entityId}~o~{observationId}    observation
 *   {entityId}~r~in~{relationId}    incoming edge (a copy of the relation, kept with its target)
 *   {entityId}~r~out~{relationId}   outgoing edge (a copy of the relation, kept with its source)
 *   {relationId}                    relation (canonical row, addressable by relation id)
 *
 * "~" sorts after every GUID character, and "~o~" before "~r~", so one entity is one contiguous
 * range: the entity row, then its observations, then its edges.
 */
const SEPARATOR = "~";
const OBSERVATION = "~o~";
const EDGES = "~r~";
const EDGE_IN = "~r~in~";
const EDGE_OUT = "~r~out~";

/** Stored in each row's `kind` property, because entity and relation keys are both bare GUIDs. */
export type RowKind = "entity" | "observation" | "edge-in" | "edge-out" | "relation";

export const rowKey = {
  entity: (entityId: string) => entityId,
  observation: (entityId: string, observationId: string) => `${entityId}${OBSERVATION}${observationId}`,
  edgeIn: (toId: string, relationId: string) => `${toId}${EDGE_IN}${relationId}`,
  edgeOut: (fromId: string, relationId: string) => `${fromId}${EDGE_OUT}${relationId}`,
  relation: (relationId: string) => relationId,
};

/** Half-open RowKey ranges [from, to). */
export interface KeyRange {
  from: string;
  to: string;
}

export const keyRange = {
  /** The entity row and everything hanging off it. */
  wholeEntity: (entityId: string): KeyRange => ({ from: entityId, to: `${entityId}${SEPARATOR}${SEPARATOR}` }),
  /** The entity row and its observations, without edges. */
  entityWithObservations: (entityId: string): KeyRange => ({ from: entityId, to: `${entityId}${OBSERVATION}${SEPARATOR}` }),
  /** Every row after the entity's whole range: where a scan continues past this entity. */
  after: (entityId: string): KeyRange => ({ from: `${entityId}${SEPARATOR}${SEPARATOR}`, to: `${SEPARATOR}` }),
  /** Only edges, optionally of one direction. */
  edges: (entityId: string, direction: "in" | "out" | "both"): KeyRange => {
    const prefix = direction === "in" ? EDGE_IN : direction === "out" ? EDGE_OUT : EDGES;
    return { from: `${entityId}${prefix}`, to: `${entityId}${prefix}${SEPARATOR}` };
  },
};

/** The entity a row belongs to: the GUID its key starts with (an entity row's key is the GUID itself). */
export function ownerOf(key: string): string {
  const end = key.indexOf(SEPARATOR);
  return end < 0 ? key : key.slice(0, end);
}

/** A relation's rows: the canonical row, the outgoing edge (with its source) and the incoming edge (with its target). */
export function relationRowKeys(relation: { id: string; fromEntityId: string; toEntityId: string }): [string, string, string] {
  return [rowKey.relation(relation.id), rowKey.edgeOut(relation.fromEntityId, relation.id), rowKey.edgeIn(relation.toEntityId, relation.id)];
}
