import { describe, expect, test } from "@jest/globals";

import type { ChangeEvent } from "../../src/domain/feed/history.js";
import { observationId } from "../../src/domain/model/ids.js";
import type { EntityNode, Relation, Validity } from "../../src/domain/model/model.js";
import type { WorkspaceSnapshot } from "../../src/domain/ports/graphIndex.js";
import { presentLens, type TimeLens } from "../../src/domain/rules/validity.js";
import { VectorSpace } from "../../src/search/vectors.js";
import { WorkspaceIndex } from "../../src/search/workspaceIndex.js";

/**
 * The workspace index through a TimeLens (docs/history.md#two-times), without storage: what the feed's supersessions and
 * expiries do to each read, expiry judged at the time read (no event happens at expiresAt), pins, and the meaning ranker's
 * hidden texts.
 */

const AT = "2026-12-01T10:00:00.000Z";
const NOW = Date.parse("2026-12-02T10:00:00.000Z");
const id = (i: number) => `00000000-0000-5000-8000-${String(i).padStart(12, "0")}`;

function node(
  i: number,
  name: string,
  observations: string[],
  extra: { validity?: Record<string, Validity>; expiresAt?: string; pinned?: boolean } = {},
): EntityNode {
  return {
    entity: {
      id: id(i),
      name,
      entityType: "t",
      observations,
      tags: [],
      observationTags: new Map(),
      ...(extra.validity ? { observationValidity: new Map(Object.entries(extra.validity)) } : {}),
      ...(extra.expiresAt ? { expiresAt: extra.expiresAt } : {}),
      ...(extra.pinned ? { pinned: true } : {}),
      metadata: {},
      createdAt: AT,
      updatedAt: AT,
      order: `${AT}#${String(i).padStart(6, "0")}`,
    },
    relations: [],
  };
}

function relation(n: number, from: number, to: number, extra: Partial<Relation> = {}): Relation {
  return {
    id: id(100 + n),
    fromEntityId: id(from),
    fromName: `E${from}`,
    toEntityId: id(to),
    toName: `E${to}`,
    relationType: "r",
    metadata: {},
    createdAt: AT,
    updatedAt: AT,
    order: `${AT}#${String(100 + n).padStart(6, "0")}`,
    ...extra,
  };
}

const build = (nodes: EntityNode[]): WorkspaceIndex =>
  WorkspaceIndex.build(
    {
      nodes,
      tags: [],
      versions: new Map(),
      events: [],
      registry: { present: false },
      position: { readAt: 0, seen: [] },
    } as WorkspaceSnapshot,
    undefined,
  );

let serial = 0;
const event = (changes: ChangeEvent["changes"]): ChangeEvent => {
  serial += 1;
  return {
    id: `~ev~${String(NOW + serial).padStart(13, "0")}~000000000000`,
    at: new Date(NOW + serial).toISOString(),
    principal: "key:p",
    tool: "t",
    call: "c",
    changes,
  };
};

const words = (index: WorkspaceIndex, query: string, lens?: TimeLens) =>
  index.searchEntities({ query, mode: "words", ...(lens ? { lens } : {}) }, { limit: 10 }).hits.map((hit) => hit.entity.name);

describe("WorkspaceIndex through a TimeLens", () => {
  const present = presentLens(NOW);
  const all: TimeLens = { heldAt: NOW, includeSuperseded: true };

  test("a supersession folded from the feed hides the old fact from words and conflicts at once; includeSuperseded finds it", () => {
    const index = build([node(1, "Payments", ["lead: Alice", "budget approved"]), node(2, "Alice", ["person"])]);
    expect(words(index, "Alice", present).sort()).toEqual(["Alice", "Payments"]);
    index.apply([
      event([{ kind: "observation.created", entityId: id(1), content: "lead: Bob", observationId: observationId(id(1), "lead: Bob") }]),
    ]);
    expect(index.conflicts({ lens: present }).map((c) => [c.entityName, c.key, c.values.map((v) => v.observation)])).toEqual([
      ["Payments", "lead", ["lead: Alice", "lead: Bob"]],
    ]);
    index.apply([
      event([
        {
          kind: "observation.updated",
          entityId: id(1),
          observationId: observationId(id(1), "lead: Alice"),
          validity: { validTo: new Date(NOW - 1000).toISOString(), supersededBy: "lead: Bob" },
        },
      ]),
    ]);
    expect(words(index, "Alice", present)).toEqual(["Alice"]);
    expect(index.conflicts({ lens: present })).toEqual([]);
    const found = index
      .searchEntities({ query: "Alice", mode: "words", lens: all }, { limit: 10 })
      .hits.find((hit) => hit.entity.name === "Payments")!;
    expect(found.matchedObservations).toEqual(["lead: Alice"]);
    // Without a lens the index answers as held (what the fold's own checks compare).
    expect(words(index, "Alice").sort()).toEqual(["Alice", "Payments"]);
  });

  test("expiry is judged at the time read, with nothing applied; a pin exempts", () => {
    const expires = new Date(NOW + 60_000).toISOString();
    const index = build([
      node(1, "Sprint", ["goal: invoices"], { validity: { "goal: invoices": { expiresAt: expires } } }),
      node(2, "Temp", ["zebra"], { expiresAt: expires }),
      node(3, "Kept", ["zebra kept"], { expiresAt: expires, pinned: true }),
    ]);
    const before = presentLens(NOW);
    const after = presentLens(NOW + 60_000);
    expect(words(index, "invoices", before)).toEqual(["Sprint"]);
    expect(words(index, "invoices", after)).toEqual([]);
    expect(words(index, "zebra", before).sort()).toEqual(["Kept", "Temp"]);
    expect(words(index, "zebra", after)).toEqual(["Kept"]);
    expect(words(index, "zebra", { ...after, includeSuperseded: true })).toEqual(["Kept"]);
    expect(index.stats(before)).toMatchObject({ entities: 3, observations: 3, expiring: 2 });
    expect(index.stats(after)).toMatchObject({ entities: 2, observations: 1, expired: 2 });
    expect(index.stats(after).expiring).toBeUndefined();
  });

  test("relations: hidden when ended or when an end is expired; the traversal reads a hidden entity as absent", async () => {
    const gone = new Date(NOW - 1000).toISOString();
    const index = build([
      { ...node(1, "E1", []), relations: [relation(1, 1, 2, { validTo: gone }), relation(2, 1, 3), relation(3, 1, 2)] },
      node(2, "E2", []),
      node(3, "E3", [], { expiresAt: gone }),
    ]);
    const shown = index.searchRelations({ lens: present }, { limit: 10 }).relations.map((r) => r.id);
    expect(shown).toEqual([id(103)]);
    expect(index.searchRelations({ lens: all }, { limit: 10 }).relations.map((r) => r.id)).toEqual([id(101), id(103)]);
    const port = index.traversal(present);
    const [e1, e3] = await port.nodes("w", [id(1), id(3)]);
    expect(e1!.relations.map((r) => r.id)).toEqual([id(103)]);
    expect(e3).toBeUndefined();
    expect(index.stats(present).mostConnected.map((m) => [m.name, m.degree])).toEqual([
      ["E1", 1],
      ["E2", 1],
    ]);
  });
});

describe("VectorSpace.nearest", () => {
  test("a hidden text does not count: the entity's next nearest text stands for it", () => {
    const space = new VectorSpace("m");
    space.track("a", ["name a", "near", "far"]);
    const vectors = new Map([
      ["name a", new Float32Array([0, 1])],
      ["near", new Float32Array([1, 0])],
      ["far", new Float32Array([0.6, 0.8])],
    ]);
    space.fill(new Map([...space.pendingTexts()].map(([key, text]) => [key, vectors.get(text)!])));
    const query = new Float32Array([1, 0]);
    expect(space.nearest(query, () => true, 0)).toEqual([{ id: "a", similarity: 1, text: 1 }]);
    const [hit] = space.nearest(
      query,
      () => true,
      0,
      () => new Set([1]),
    );
    expect(hit!.text).toBe(2);
    expect(hit!.similarity).toBeCloseTo(0.6);
  });
});
