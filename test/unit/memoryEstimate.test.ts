import { describe, expect, test } from "@jest/globals";

import type { ChangeEvent } from "../../src/domain/feed/history.js";
import { observationId } from "../../src/domain/model/ids.js";
import type { EntityNode, Metadata, Relation, TagDefinition } from "../../src/domain/model/model.js";
import type { WorkspaceSnapshot } from "../../src/domain/ports/graphIndex.js";
import { WorkspaceIndex } from "../../src/search/workspaceIndex.js";

/**
 * The index's memory estimate (issue #21, defect 7): metadata, tags and observation tags count, and the estimate kept as
 * events apply equals the estimate of a fresh build of the same state. The heap itself is measured by
 * `node --expose-gc dist/bench/indexMemory.js` (docs/search.md#memory), which jest cannot do.
 */
const AT = "2026-12-01T10:00:00.000Z";
const id = (i: number) => `00000000-0000-5000-8000-${String(i).padStart(12, "0")}`;

function node(i: number, extra: { metadata?: Metadata; tags?: string[]; observationTags?: string[] } = {}): EntityNode {
  const observations = [`first fact about ${i}`, `second fact about ${i}`];
  return {
    entity: {
      id: id(i),
      name: `Entity ${i}`,
      entityType: "t",
      observations,
      tags: extra.tags ?? [],
      observationTags: new Map(extra.observationTags ? observations.map((content) => [content, extra.observationTags!]) : []),
      metadata: extra.metadata ?? {},
      createdAt: AT,
      updatedAt: AT,
      order: `${AT}#${String(i).padStart(6, "0")}`,
    },
    relations: [],
  };
}

function relation(i: number, from: number, to: number, metadata: Metadata = {}): Relation {
  return {
    id: id(1000 + i),
    fromEntityId: id(from),
    fromName: `Entity ${from}`,
    toEntityId: id(to),
    toName: `Entity ${to}`,
    relationType: "knows",
    metadata,
    createdAt: AT,
    updatedAt: AT,
    order: `${AT}#${String(1000 + i).padStart(6, "0")}`,
  };
}

function snapshot(nodes: EntityNode[], tags: TagDefinition[] = []): WorkspaceSnapshot {
  return { nodes, tags, versions: new Map(), events: [], registry: { present: false }, position: { readAt: 0, seen: [] } };
}

/** A fresh build of what `index` holds now: the estimate a restarted instance would make. */
function rebuilt(index: WorkspaceIndex): WorkspaceIndex {
  const { entities, relations } = index.page({});
  const nodes = entities.map((entity) => ({ entity, relations: relations.filter((r) => r.fromEntityId === entity.id) }));
  return WorkspaceIndex.build(snapshot(nodes, index.listTags()), undefined);
}

const heavyMetadata = (i: number): Metadata => ({
  owner: `team-${i}`,
  attributes: Object.fromEntries(Array.from({ length: 50 }, (_, k) => [`attribute${k}`, `value ${k} of entity ${i}, a short phrase`])),
  history: Array.from({ length: 20 }, (_, k) => ({ at: AT, by: `user-${k}`, note: `changed field ${k}`, rev: k })),
});
const TAGS = Array.from({ length: 10 }, (_, k) => `project-architecture-decision-${k}`);

let n = 0;
const event = (changes: ChangeEvent["changes"]): ChangeEvent => ({
  id: `~ev~${String(++n).padStart(13, "0")}~000000000000`,
  at: AT,
  principal: "key:p",
  tool: "t",
  call: "c",
  changes,
});

describe("the index's memory estimate", () => {
  test("grows at least with the JSON size of entity and relation metadata", () => {
    const plain = WorkspaceIndex.build(
      snapshot([1, 2, 3].map((i) => ({ ...node(i), relations: [relation(i, i, (i % 3) + 1)] }))),
      undefined,
    );
    const heavy = WorkspaceIndex.build(
      snapshot(
        [1, 2, 3].map((i) => ({
          ...node(i, { metadata: heavyMetadata(i) }),
          relations: [relation(i, i, (i % 3) + 1, heavyMetadata(10 + i))],
        })),
      ),
      undefined,
    );
    const json = [1, 2, 3, 11, 12, 13].reduce((sum, i) => sum + JSON.stringify(heavyMetadata(i)).length, 0);
    expect(heavy.estimatedBytes() - plain.estimatedBytes()).toBeGreaterThanOrEqual(json);
  });

  test("grows at least with the names of the tags entities and observations carry, and with each tag carried", () => {
    const plain = WorkspaceIndex.build(snapshot([1, 2, 3].map((i) => node(i))), undefined);
    const tagged = WorkspaceIndex.build(snapshot([1, 2, 3].map((i) => node(i, { tags: TAGS, observationTags: TAGS }))), undefined);
    // Each entity carries 10 tags itself and 10 on each of its 2 observations: 90 tags in all.
    const carried = 3 * 3 * TAGS.length;
    const names = 3 * 3 * TAGS.join("").length;
    expect(tagged.estimatedBytes() - plain.estimatedBytes()).toBeGreaterThanOrEqual(names + carried * 16);
  });

  test("kept as events apply, it equals a fresh build's estimate of the same state", () => {
    const index = WorkspaceIndex.build(
      snapshot([1, 2, 3, 4].map((i) => ({ ...node(i), relations: i < 4 ? [relation(i, i, i + 1)] : [] }))),
      undefined,
    );
    const steps: ChangeEvent["changes"][] = [
      [{ kind: "entity.updated", entityId: id(1), after: { name: "Entity 1", entityType: "t", metadata: heavyMetadata(1) } }],
      [
        {
          kind: "relation.updated",
          relationId: id(1002),
          after: {
            fromEntityId: id(2),
            fromName: "Entity 2",
            toEntityId: id(3),
            toName: "Entity 3",
            relationType: "knows",
            metadata: heavyMetadata(2),
          },
        },
      ],
      TAGS.map((tagName) => ({ kind: "tag.created" as const, entityId: id(2), tagName })),
      TAGS.map((tagName) => ({
        kind: "tag.created" as const,
        entityId: id(3),
        observationId: observationId(id(3), "first fact about 3"),
        tagName,
      })),
      [{ kind: "observation.created", entityId: id(4), content: "x".repeat(5000) }],
      [{ kind: "tag.created", tagName: "defined", after: { category: "c", description: "d".repeat(3000) } }],
      [{ kind: "entity.created", entityId: id(5), after: { name: "Entity 5", entityType: "t", metadata: heavyMetadata(5) } }],
      [{ kind: "tag.deleted", entityId: id(2), tagName: TAGS[0]! }],
      // Deleting entity 1 drops its relation (1 -> 2) with no relation event; entity 3's goes with its own event.
      [{ kind: "entity.deleted", entityId: id(1) }],
      [
        { kind: "relation.deleted", relationId: id(1003) },
        { kind: "entity.deleted", entityId: id(3) },
      ],
      [{ kind: "observation.deleted", entityId: id(4), content: "x".repeat(5000) }],
    ];
    const seen: number[] = [];
    for (const changes of steps) {
      index.apply([event(changes)]);
      seen.push(index.estimatedBytes());
      expect(index.estimatedBytes()).toBe(rebuilt(index).estimatedBytes());
    }
    // Every step moved it (each added or removed something held).
    expect(new Set(seen).size).toBe(seen.length);
  });
});
