/**
 * Who writes, and through which tool. `principal` is the principal id (`key:<id>`, `entra:<oid>`,
 * `anonymous`, or `cli` for the import command), recorded as createdBy/updatedBy on the rows a write
 * creates or changes; both are recorded in the write's change events (docs/history.md).
 */
export interface Actor {
  principal: string;
  /** The tool name (`upsert_entity`, ...), or `import` for the import command. */
  tool: string;
}

/**
 * When a fact holds (valid time) and how long the memory keeps it (docs/history.md#two-times). Every field is optional and
 * absent unless set: `validFrom` defaults to when the fact was written, an absent `validTo` means "still true", an absent
 * `expiresAt` means "kept until deleted". ISO 8601 times. An entity carries only `expiresAt` and `pinned`.
 *
 * The same shape is a patch where a change records it (Change.validity) and where rows store it: "" (or `pinned: false`)
 * there clears a field, so a patch merges onto a row as it is.
 */
export interface Validity {
  validFrom?: string;
  validTo?: string;
  /** The observation that replaced this one (supersede_observation, or a single-valued fact key). */
  supersededBy?: string;
  expiresAt?: string;
  /** Exempt from expiry (and any future decay). */
  pinned?: boolean;
}

/** JSON object attached to an entity or relation by the caller. */
export type Metadata = Record<string, unknown>;

export interface Entity {
  id: string;
  name: string;
  entityType: string;
  /** In the order they were first added. */
  observations: string[];
  /** Names of the tags on the entity itself, sorted. */
  tags: string[];
  /** Tag names of each observation that has tags, by observation content; sorted. */
  observationTags: ReadonlyMap<string, string[]>;
  /** The valid time and expiry of each observation that has any (Validity), by observation content; absent when none has. */
  observationValidity?: ReadonlyMap<string, Validity>;
  /** The entity's own expiry (Validity: only expiresAt and pinned apply to an entity). */
  expiresAt?: string;
  pinned?: boolean;
  metadata: Metadata;
  createdAt: string;
  updatedAt: string;
  /** Authorship (principal ids, see Actor); absent on rows written before it was recorded. */
  createdBy?: string;
  updatedBy?: string;
  /** Sorts in the order added: time of creation, then position within the call that created it. */
  order: string;
  /** The row's version (docs/curate.md#versions), when the read took it. */
  version?: string;
}

export interface Relation {
  id: string;
  fromEntityId: string;
  fromName: string;
  toEntityId: string;
  toName: string;
  relationType: string;
  metadata: Metadata;
  createdAt: string;
  updatedAt: string;
  /** As Entity.createdBy and updatedBy. */
  createdBy?: string;
  updatedBy?: string;
  /** Sorts in the order added, as Entity.order. */
  order: string;
  /** As Entity.version. */
  version?: string;
  /** Valid time and expiry (Validity; a relation is never superseded, only ended). */
  validFrom?: string;
  validTo?: string;
  expiresAt?: string;
  pinned?: boolean;
}

export type Direction = "out" | "in" | "both";

/**
 * One page of a workspace graph: entities, and the relations whose source is among them (so paging
 * through returns every relation exactly once). `cursor` is absent on the last page.
 */
export interface GraphPage {
  entities: Entity[];
  relations: Relation[];
  cursor?: string;
}

/** How much of each entity a read returns: everything, or only names and types (a small table of contents). */
export type ReadMode = "full" | "names";

/** An entity with the relations of its edge rows: every relation that starts or ends at it. */
export interface EntityNode {
  entity: Entity;
  relations: Relation[];
}

/** A tag of a workspace: its name, and what it means (both empty unless set with define_tag). */
export interface TagDefinition {
  name: string;
  category: string;
  description: string;
}

/** How many entities and observations carry a tag. */
export interface TagUsage extends TagDefinition {
  entities: number;
  observations: number;
}
