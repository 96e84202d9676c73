import type { Touched } from "../domain/feed/fold.js";
import type { Metadata, TagDefinition } from "../domain/model/model.js";

/**
 * How many bytes of heap a workspace index holds (docs/search.md#memory), estimated from what it holds, so the registry
 * can keep MEMORY_INDEX_MAX_MB. Everything an entity or relation keeps in memory counts: its text (held once and indexed
 * once by MiniSearch), its metadata (a parsed JSON tree), its tags and its observations' tags (each a set entry and a
 * string), and the fixed cost of each object, map and set. The constants are fitted to the heap `bench/indexMemory.ts`
 * measures (`node --expose-gc`) on plain, metadata-heavy and tag-heavy workspaces.
 *
 * The estimate is kept per entity and per relation and updated for what the fold says each batch of events touched
 * (domain/feed/fold.ts), so keeping it costs the size of the changes, not a walk over the whole workspace.
 */
const BYTES = {
  /** Per character of an entity's searchable text (name, type, observations): the string, and MiniSearch's terms and postings. */
  char: 4,
  /** Per character of any other string held (ids, times, authors, tag names, metadata strings). */
  string: 1,
  /** Per string object (its header), beyond its characters. */
  stringObject: 16,
  entity: 1600,
  /** Per observation: its map entry and its MiniSearch postings (an untagged observation holds no set). */
  observation: 50,
  /** Per observation that carries a tag: its tag set and its entry in the entity's map of them. */
  observationTagSet: 170,
  relation: 600,
  /** Per tag an entity or observation carries: the set entry (its name is counted as a string). */
  tag: 16,
  /** Per object and array in metadata (its header), and per property or element (its slot; keys are shared). */
  metadataNode: 40,
  metadataSlot: 8,
  definition: 200,
} as const;

/** What the estimate reads of an entity the index holds. */
export interface EntityFootprint {
  name: string;
  entityType: string;
  metadata: Metadata;
  observations: ReadonlyMap<string, string>;
  observationTags: ReadonlyMap<string, ReadonlySet<string>> | undefined;
  tags: ReadonlySet<string>;
}

/** What the estimate reads of a relation the index holds. */
export interface RelationFootprint {
  relationType: string;
  fromName: string;
  toName: string;
  metadata: Metadata;
}

/** A string's heap: its header and characters. */
const stringBytes = (value: string) => BYTES.stringObject + BYTES.string * value.length;

/** Metadata trees by identity: an update replaces the tree, so a tree's size is measured once. */
const measuredMetadata = new WeakMap<object, number>();

/** The heap a metadata tree holds (jsonBytes), measured once per tree. */
function metadataBytes(metadata: Metadata): number {
  let bytes = measuredMetadata.get(metadata);
  if (bytes === undefined) {
    bytes = jsonBytes(metadata);
    measuredMetadata.set(metadata, bytes);
  }
  return bytes;
}

/** The heap a parsed JSON value holds: each object and array, each slot, each string value. */
function jsonBytes(value: unknown): number {
  if (typeof value === "string") return stringBytes(value);
  if (value === null || typeof value !== "object") return 0; // numbers, booleans, null: in their slot
  let bytes = BYTES.metadataNode;
  if (Array.isArray(value)) {
    for (const element of value as unknown[]) bytes += BYTES.metadataSlot + jsonBytes(element);
    return bytes;
  }
  // Keys are not counted: JSON.parse makes them internalized strings, one per distinct key in the process.
  const record = value as Record<string, unknown>;
  for (const key in record) bytes += BYTES.metadataSlot + jsonBytes(record[key]);
  return bytes;
}

/** An entity's heap: fixed cost, searchable text, metadata, tags, and each observation with its tags. */
function entityBytes(entity: EntityFootprint): number {
  let bytes = BYTES.entity + BYTES.char * (entity.name.length + entity.entityType.length) + metadataBytes(entity.metadata);
  for (const tag of entity.tags) bytes += BYTES.tag + stringBytes(tag);
  for (const content of entity.observations.values()) bytes += BYTES.observation + BYTES.char * content.length;
  for (const tags of entity.observationTags?.values() ?? []) {
    bytes += BYTES.observationTagSet;
    for (const tag of tags) bytes += BYTES.tag + stringBytes(tag);
  }
  return bytes;
}

/** A relation's heap (held once, listed from both ends): fixed cost, its strings and its metadata. */
function relationBytes(relation: RelationFootprint): number {
  return (
    BYTES.relation +
    BYTES.char * relation.relationType.length +
    BYTES.string * (relation.fromName.length + relation.toName.length) +
    metadataBytes(relation.metadata)
  );
}

function definitionBytes(definition: TagDefinition): number {
  return BYTES.definition + BYTES.string * (definition.name.length + definition.category.length + definition.description.length);
}

/** What the index holds now, as the estimate looks it up after applying events. */
export interface EstimatedGraph {
  entity(id: string): EntityFootprint | undefined;
  relation(id: string): RelationFootprint | undefined;
  definitions(): Iterable<TagDefinition>;
}

/**
 * One index's estimate, kept per entity and relation: counted in full when the index is built (`of`), then re-counted
 * for what each batch of applied events touched (`update`).
 */
export class MemoryEstimate {
  private readonly entities = new Map<string, number>();
  private readonly relations = new Map<string, number>();
  private definitionTotal = 0;
  private total = 0;

  static of(
    entities: Iterable<[string, EntityFootprint]>,
    relations: Iterable<[string, RelationFootprint]>,
    definitions: Iterable<TagDefinition>,
  ): MemoryEstimate {
    const estimate = new MemoryEstimate();
    for (const [id, entity] of entities) estimate.setEntity(id, entity);
    for (const [id, relation] of relations) estimate.setRelation(id, relation);
    estimate.setDefinitions(definitions);
    return estimate;
  }

  bytes(): number {
    return this.total;
  }

  /**
   * Re-counts every entity, relation and tag definition the fold touched, from what `graph` holds now (the relations a
   * deleted entity took along are among those touched).
   */
  update(touched: Touched, graph: EstimatedGraph): void {
    for (const id of touched.entities) this.setEntity(id, graph.entity(id));
    for (const id of touched.relations) this.setRelation(id, graph.relation(id));
    if (touched.definitions) this.setDefinitions(graph.definitions());
  }

  private setEntity(id: string, entity: EntityFootprint | undefined): void {
    this.setBytes(this.entities, id, entity && entityBytes(entity));
  }

  private setRelation(id: string, relation: RelationFootprint | undefined): void {
    this.setBytes(this.relations, id, relation && relationBytes(relation));
  }

  /** One item's figure replaced in the total (undefined: the item is gone). */
  private setBytes(figures: Map<string, number>, id: string, bytes: number | undefined): void {
    this.total -= figures.get(id) ?? 0;
    if (bytes === undefined) figures.delete(id);
    else {
      figures.set(id, bytes);
      this.total += bytes;
    }
  }

  private setDefinitions(definitions: Iterable<TagDefinition>): void {
    this.total -= this.definitionTotal;
    this.definitionTotal = 0;
    for (const definition of definitions) this.definitionTotal += definitionBytes(definition);
    this.total += this.definitionTotal;
  }
}
