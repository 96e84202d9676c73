import fc from "fast-check";

import type { Change, ChangeEvent, EntityState, RelationState } from "../../src/domain/feed/history.js";
import { entityId, observationId, relationId } from "../../src/domain/model/ids.js";
import type { Metadata } from "../../src/domain/model/model.js";

/**
 * Change feeds as storage writes them, without storage: a writer that keeps the rows a workspace holds (by name) and
 * records, for each call, the changes src/storage's writes record for it (docs/history.md#what-an-event-holds): dependents
 * deleted before their entity, tags linked only on what exists, upsert_relation by names without a before-image. What it
 * holds after a history is what storage holds after it: the oracle the fold test compares both folds with.
 */

export const WORKSPACE = "fold-test";
const NAMES = ["A", "B", "C", "D"];
/** Shared by every entity, so equal contents on two entities have two observation ids. */
const CONTENTS = ["x", "y", "z"];
const TAGS = ["t1", "t2"];
const TYPES = ["person", "project"];
const RELATION_TYPES = ["knows", "uses"];
const PRINCIPALS = ["key:ana", "key:ben"];

type Op =
  | { op: "upsert"; name: string; entityType: string; contents: string[]; metadata?: Metadata }
  | { op: "observe"; name: string; contents: string[] }
  | { op: "unobserve"; name: string; content: string }
  | { op: "delete"; name: string }
  | { op: "relate"; from: string; to: string; relationType: string; metadata?: Metadata }
  | { op: "unrelate"; from: string; to: string; relationType: string }
  | { op: "tag"; name: string; tag: string; content?: string }
  | { op: "untag"; name: string; tag: string; content?: string }
  | { op: "define"; tag: string; category: string; description: string }
  | { op: "undefine"; tag: string };

/** One transaction: its calls' changes in one event, by one principal, `advanceMs` after the previous one (0: the same `at`). */
export interface Step {
  ops: Op[];
  principal: string;
  advanceMs: number;
  /** How far the writer's clock, which picks the event key, is off (the feed's order never reads it). */
  skewMs: number;
}

interface HeldEntity {
  id: string;
  state: EntityState;
  /** Content -> tags, in the order added. */
  observations: Map<string, Set<string>>;
  tags: Set<string>;
}

/** What a workspace holds, by name: the stored graph in a form both folds are compared with. */
export interface Held {
  entities: Map<string, HeldEntity>;
  relations: Map<string, RelationState>;
  definitions: Map<string, { category: string; description: string }>;
}

const name = fc.constantFrom(...NAMES);
const content = fc.constantFrom(...CONTENTS);
const tag = fc.constantFrom(...TAGS);
const metadata = fc.option(fc.record({ v: fc.integer({ min: 0, max: 3 }) }), { nil: undefined });
const contents = fc.uniqueArray(content, { maxLength: 3 });
const defined = <T extends object>(value: T): T => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({ op: fc.constant("upsert" as const), name, entityType: fc.constantFrom(...TYPES), contents, metadata })
      .map(defined),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("observe" as const), name, contents }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("unobserve" as const), name, content }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("delete" as const), name }) },
  {
    weight: 3,
    arbitrary: fc
      .record({ op: fc.constant("relate" as const), from: name, to: name, relationType: fc.constantFrom(...RELATION_TYPES), metadata })
      .map(defined),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant("unrelate" as const), from: name, to: name, relationType: fc.constantFrom(...RELATION_TYPES) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constant("tag" as const), name, tag, content: fc.option(content, { nil: undefined }) }).map(defined),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant("untag" as const), name, tag, content: fc.option(content, { nil: undefined }) }).map(defined),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("define" as const),
      tag,
      category: fc.constantFrom("a", "b"),
      description: fc.constantFrom("d1", "d2"),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("undefine" as const), tag }) },
);

/** Histories of up to 40 transactions; `at` often repeats (several transactions in one millisecond). */
export const histories: fc.Arbitrary<Step[]> = fc.array(
  fc.record({
    ops: fc.array(op, { minLength: 1, maxLength: 3 }),
    principal: fc.constantFrom(...PRINCIPALS),
    advanceMs: fc.constantFrom(0, 0, 1, 7),
    skewMs: fc.constantFrom(0, 0, -30_000, 30_000),
  }),
  { maxLength: 40 },
);

const BASE_MS = Date.parse("2026-12-01T10:00:00.000Z");

/**
 * The events a history leaves, in commit order (each commits 1 ms of server time after the one before), and what the
 * workspace holds after each of them (`held[i]`: after `events[i]`).
 */
export function writeHistory(steps: readonly Step[]): { events: ChangeEvent[]; held: Held[] } {
  const writer = new FeedWriter();
  const events: ChangeEvent[] = [];
  const held: Held[] = [];
  let atMs = BASE_MS;
  steps.forEach((step, i) => {
    atMs += step.advanceMs;
    const changes = step.ops.flatMap((one) => writer.write(one));
    if (changes.length === 0) return;
    events.push({
      id: `~ev~${String(atMs + step.skewMs).padStart(13, "0")}~${String(i).padStart(12, "0")}`,
      at: new Date(atMs).toISOString(),
      committed: new Date(BASE_MS + 60_000 + events.length).toISOString(),
      principal: step.principal,
      tool: "fold-test",
      call: `call-${i}`,
      changes,
    });
    held.push(writer.snapshot());
  });
  return { events, held };
}

class FeedWriter {
  private readonly held: Held = { entities: new Map(), relations: new Map(), definitions: new Map() };
  private versions = 0;

  snapshot(): Held {
    const entities = new Map(
      [...this.held.entities].map(([key, entity]) => [
        key,
        {
          ...entity,
          observations: new Map([...entity.observations].map(([text, tags]) => [text, new Set(tags)])),
          tags: new Set(entity.tags),
        },
      ]),
    );
    return { entities, relations: new Map(this.held.relations), definitions: new Map(this.held.definitions) };
  }

  write(call: Op): Change[] {
    switch (call.op) {
      case "upsert":
        return this.upsert(call.name, call.entityType, call.contents, call.metadata);
      case "observe":
        return this.held.entities.has(call.name) ? this.observe(call.name, call.contents) : [];
      case "unobserve":
        return this.unobserve(call.name, call.content);
      case "delete":
        return this.deleteEntity(call.name);
      case "relate":
        return this.relate(call.from, call.to, call.relationType, call.metadata);
      case "unrelate": {
        const id = this.relationIdOf(call.from, call.to, call.relationType);
        const before = this.held.relations.get(id);
        if (!before) return [];
        this.held.relations.delete(id);
        return [{ kind: "relation.deleted", relationId: id, before }];
      }
      case "tag":
        return this.tag(call.name, call.tag, call.content);
      case "untag":
        return this.untag(call.name, call.tag, call.content);
      case "define": {
        const before = this.held.definitions.get(call.tag);
        const after = { category: call.category, description: call.description };
        this.held.definitions.set(call.tag, after);
        return [before ? { kind: "tag.updated", tagName: call.tag, before, after } : { kind: "tag.created", tagName: call.tag, after }];
      }
      case "undefine": {
        const before = this.held.definitions.get(call.tag);
        if (!before) return [];
        const unlinked = [...this.held.entities.keys()].flatMap((entity) => [
          ...this.untag(entity, call.tag),
          ...CONTENTS.flatMap((text) => this.untag(entity, call.tag, text)),
        ]);
        this.held.definitions.delete(call.tag);
        return [...unlinked, { kind: "tag.deleted", tagName: call.tag, before }];
      }
    }
  }

  private upsert(name: string, entityType: string, contents: readonly string[], metadata?: Metadata): Change[] {
    const id = entityId(WORKSPACE, name);
    const existing = this.held.entities.get(name);
    const after: EntityState = { name, entityType, metadata: metadata ?? existing?.state.metadata ?? {}, version: this.version() };
    if (existing) {
      const before = existing.state;
      existing.state = after;
      return [{ kind: "entity.updated", entityId: id, entityName: name, before, after }, ...this.observe(name, contents)];
    }
    this.held.entities.set(name, { id, state: after, observations: new Map(), tags: new Set() });
    return [{ kind: "entity.created", entityId: id, entityName: name, after }, ...this.observe(name, contents)];
  }

  private observe(name: string, contents: readonly string[]): Change[] {
    const entity = this.held.entities.get(name)!;
    return contents
      .filter((text) => !entity.observations.has(text))
      .map((text): Change => {
        entity.observations.set(text, new Set());
        return {
          kind: "observation.created",
          entityId: entity.id,
          entityName: name,
          observationId: observationId(entity.id, text),
          content: text,
        };
      });
  }

  private unobserve(name: string, text: string): Change[] {
    const entity = this.held.entities.get(name);
    const tags = entity?.observations.get(text);
    if (!entity || !tags) return [];
    const untagged = [...tags].flatMap((tagName) => this.untag(name, tagName, text));
    entity.observations.delete(text);
    return [
      ...untagged,
      { kind: "observation.deleted", entityId: entity.id, entityName: name, observationId: observationId(entity.id, text), content: text },
    ];
  }

  /** Dependents first (relations, tags, observations), the entity row last: docs/architecture.md#concurrency-rules. */
  private deleteEntity(name: string): Change[] {
    const entity = this.held.entities.get(name);
    if (!entity) return [];
    const relations = [...this.held.relations].filter(([, r]) => r.fromEntityId === entity.id || r.toEntityId === entity.id);
    const changes: Change[] = relations.map(([id, before]) => {
      this.held.relations.delete(id);
      return { kind: "relation.deleted", relationId: id, before };
    });
    changes.push(...[...entity.tags].flatMap((tagName) => this.untag(name, tagName)));
    changes.push(...[...entity.observations.keys()].flatMap((text) => this.unobserve(name, text)));
    this.held.entities.delete(name);
    changes.push({ kind: "entity.deleted", entityId: entity.id, entityName: name, before: entity.state });
    return changes;
  }

  /** upsert_relation by names: created, or updated without a before-image (and without metadata when none is given). */
  private relate(from: string, to: string, relationType: string, metadata?: Metadata): Change[] {
    if (!this.held.entities.has(from) || !this.held.entities.has(to)) return [];
    const id = this.relationIdOf(from, to, relationType);
    const existing = this.held.relations.get(id);
    const state: RelationState = {
      fromEntityId: entityId(WORKSPACE, from),
      fromName: from,
      toEntityId: entityId(WORKSPACE, to),
      toName: to,
      relationType,
      metadata: metadata ?? existing?.metadata ?? {},
      version: this.version(),
    };
    this.held.relations.set(id, state);
    if (!existing) return [{ kind: "relation.created", relationId: id, after: state }];
    const { metadata: _kept, ...withoutMetadata } = state;
    return [{ kind: "relation.updated", relationId: id, after: metadata !== undefined ? state : withoutMetadata }];
  }

  /** Tagging links only what exists, and creates the tag's definition when the workspace has none. */
  private tag(name: string, tagName: string, text?: string): Change[] {
    const entity = this.held.entities.get(name);
    const tags = text === undefined ? entity?.tags : entity?.observations.get(text);
    if (!entity || !tags || tags.has(tagName)) return [];
    tags.add(tagName);
    if (!this.held.definitions.has(tagName)) this.held.definitions.set(tagName, { category: "", description: "" });
    return [{ kind: "tag.created", entityId: entity.id, entityName: name, ...this.observationOf(entity, text), tagName }];
  }

  private untag(name: string, tagName: string, text?: string): Change[] {
    const entity = this.held.entities.get(name);
    const tags = text === undefined ? entity?.tags : entity?.observations.get(text);
    if (!entity || !tags?.delete(tagName)) return [];
    return [{ kind: "tag.deleted", entityId: entity.id, entityName: name, ...this.observationOf(entity, text), tagName }];
  }

  private observationOf(entity: HeldEntity, text: string | undefined): { observationId?: string } {
    return text === undefined ? {} : { observationId: observationId(entity.id, text) };
  }

  private relationIdOf(from: string, to: string, relationType: string): string {
    return relationId(WORKSPACE, entityId(WORKSPACE, from), relationType, entityId(WORKSPACE, to));
  }

  private version(): string {
    return `v${++this.versions}`;
  }
}
