import { describe, expect, test } from "@jest/globals";

import type { ChangeEvent, FeedPosition } from "../../src/domain/feed/history.js";
import { observationId } from "../../src/domain/model/ids.js";
import type { EntityNode, TagDefinition } from "../../src/domain/model/model.js";
import type { FeedTail, IndexSource, RegistryState, WorkspaceSnapshot } from "../../src/domain/ports/graphIndex.js";
import { IndexRegistry } from "../../src/search/registry.js";
import { WorkspaceIndex } from "../../src/search/workspaceIndex.js";

/** The index's pure rules, without storage: event application, query pruning, and the registry's rebuild and eviction rules. */

const AT = "2026-12-01T10:00:00.000Z";
const id = (i: number) => `00000000-0000-5000-8000-${String(i).padStart(12, "0")}`;

function node(i: number, name: string, observations: string[]): EntityNode {
  return {
    entity: {
      id: id(i),
      name,
      entityType: "t",
      observations,
      tags: [],
      observationTags: new Map(),
      metadata: {},
      createdAt: AT,
      updatedAt: AT,
      order: `${AT}#${String(i).padStart(6, "0")}`,
    },
    relations: [],
  };
}

function snapshot(nodes: EntityNode[], registry: RegistryState = { present: false }, events: ChangeEvent[] = []): WorkspaceSnapshot {
  return { nodes, tags: [], versions: new Map(), events, registry, position: { readAt: 0, seen: [] } };
}

const event = (changes: ChangeEvent["changes"], n = 1): ChangeEvent => ({
  id: `~ev~${String(n).padStart(13, "0")}~000000000000`,
  at: AT,
  principal: "key:p",
  tool: "t",
  call: "c",
  changes,
});

describe("WorkspaceIndex", () => {
  test("reads how many entities hold a term from MiniSearch (a MiniSearch upgrade that hides it fails here)", () => {
    const index = WorkspaceIndex.build(
      snapshot([node(1, "A", ["shared one"]), node(2, "B", ["shared two"]), node(3, "C", ["shared unique"])]),
      undefined,
    );
    expect(index.documentFrequency("shared")).toBe(3);
    expect(index.documentFrequency("unique")).toBe(1);
    expect(index.documentFrequency("absent")).toBe(0);
  });

  test("applying events it already applied changes nothing", () => {
    const index = WorkspaceIndex.build(snapshot([node(1, "A", ["a1"]), node(2, "B", [])]), undefined);
    const events = [
      event(
        [{ kind: "observation.created", entityId: id(2), entityName: "B", observationId: observationId(id(2), "b1"), content: "b1" }],
        1,
      ),
      event(
        [{ kind: "observation.deleted", entityId: id(1), entityName: "A", observationId: observationId(id(1), "a1"), content: "a1" }],
        2,
      ),
      event(
        [
          {
            kind: "relation.created",
            relationId: id(9),
            after: { fromEntityId: id(1), fromName: "A", toEntityId: id(2), toName: "B", relationType: "r", metadata: {} },
          },
        ],
        3,
      ),
    ];
    index.apply(events);
    const once = index.page({});
    index.apply(events);
    expect(index.page({})).toEqual(once);
    expect(once.entities.map((e) => [e.name, e.observations])).toEqual([
      ["A", []],
      ["B", ["b1"]],
    ]);
    expect(once.relations.map((r) => r.relationType)).toEqual(["r"]);
  });

  test("in a large workspace, a term most entities hold is dropped from a query that has others; in a small one it is kept", () => {
    const many = Array.from({ length: 1000 }, (_, i) => node(i, `E${i}`, [`common words ${i === 7 ? "needle" : ""}`]));
    const large = WorkspaceIndex.build(snapshot(many), undefined);
    expect(large.searchEntities({ query: "common needle" }, { limit: 5 }).hits.map((hit) => hit.entity.name)).toEqual(["E7"]);
    const small = WorkspaceIndex.build(snapshot(many.slice(0, 10)), undefined);
    expect(small.searchEntities({ query: "common needle" }, { limit: 50 }).hits).toHaveLength(10);
  });
});

/** An IndexSource over a scripted workspace, counting its calls. */
class ScriptedSource implements IndexSource {
  nodes: EntityNode[] = [node(1, "A", ["alpha"])];
  registry: RegistryState = { present: true, generation: "g1", etag: "e" };
  pruned = false;
  /** What the next tail read brings. */
  tailEvents: ChangeEvent[] = [];
  snapshots = 0;
  tails = 0;
  private release: (() => void) | undefined;
  private gate: Promise<void> | undefined;

  /** Holds every tail read until opened. */
  hold(): () => void {
    this.gate = new Promise((resolve) => (this.release = resolve));
    return () => {
      this.gate = undefined;
      this.release?.();
    };
  }

  snapshot(): Promise<WorkspaceSnapshot> {
    this.snapshots += 1;
    return Promise.resolve(snapshot(this.nodes, this.registry));
  }

  async tail(_workspace: string, position: FeedPosition): Promise<FeedTail | undefined> {
    this.tails += 1;
    await this.gate;
    return this.pruned ? undefined : { events: this.tailEvents.splice(0), registry: this.registry, position };
  }

  async *scanNodes(): AsyncIterable<EntityNode> {
    yield* this.nodes;
  }

  scanTags(): Promise<TagDefinition[]> {
    return Promise.resolve([]);
  }

  claimGeneration(_workspace: string, registry: RegistryState): Promise<string | undefined> {
    if (registry.generation === undefined && this.registry.present) this.registry = { ...this.registry, generation: "claimed" };
    return Promise.resolve(registry.generation ?? "claimed");
  }
}

describe("IndexRegistry", () => {
  test("builds once, then reads the tail; rebuilds when the generation changes, the row vanishes, or history was pruned past it", async () => {
    const source = new ScriptedSource();
    const registry = new IndexRegistry(source, 1 << 30);
    await registry.stats("w");
    await registry.stats("w");
    expect([source.snapshots, source.tails]).toEqual([1, 1]);
    source.registry = { present: true, generation: "g2" }; // deleted and re-created elsewhere
    await registry.stats("w");
    expect(source.snapshots).toBe(2);
    source.registry = { present: false };
    await registry.stats("w");
    expect(source.snapshots).toBe(3);
    source.pruned = true;
    await registry.stats("w");
    expect(source.snapshots).toBe(4);
  });

  test("an index built with no registry row answers only the read that built it (a delete_workspace leaves no event)", async () => {
    const source = new ScriptedSource();
    source.registry = { present: false };
    const registry = new IndexRegistry(source, 1 << 30);
    await registry.stats("w");
    await registry.stats("w"); // still no row: maybe registered and deleted in between, so built again
    expect([source.snapshots, source.tails]).toEqual([2, 0]);
    source.registry = { present: true, etag: "e" }; // first writes registered the workspace: the build claims it
    await registry.stats("w");
    await registry.stats("w");
    expect([source.snapshots, source.tails]).toEqual([3, 1]);
  });

  test("applies a tail's events in commit order, and builds again when one was committed before an event it applied", async () => {
    const source = new ScriptedSource();
    const registry = new IndexRegistry(source, 1 << 30);
    await registry.stats("w"); // built
    const renamed = (type: string, n: number, committed: string): ChangeEvent => ({
      ...event([{ kind: "entity.updated", entityId: id(1), entityName: "A", after: { name: "A", entityType: type, metadata: {} } }], n),
      committed,
    });
    // Keys in one order, commits in the other: the later commit wins.
    source.tailEvents = [renamed("second", 1, "2026-12-01T10:00:02.0000000Z"), renamed("first", 2, "2026-12-01T10:00:01.0000000Z")];
    expect((await registry.stats("w")).entityTypes).toEqual([{ entityType: "second", count: 1 }]);
    expect(source.snapshots).toBe(1);
    // An event that became visible late, committed before one applied: the index cannot apply it under that change.
    source.tailEvents = [renamed("late", 3, "2026-12-01T10:00:01.5000000Z")];
    await registry.stats("w");
    expect(source.snapshots).toBe(2);
  });

  test("concurrent answers share a refresh only if it started after they arrived", async () => {
    const source = new ScriptedSource();
    const registry = new IndexRegistry(source, 1 << 30);
    await registry.stats("w"); // built
    const open = source.hold();
    const first = registry.stats("w"); // its tail read is in flight
    await Promise.resolve();
    const second = registry.stats("w"); // arrived after that read began: must not take its answer
    const third = registry.stats("w"); // shares the second's
    await new Promise((resolve) => setTimeout(resolve, 10));
    open();
    await Promise.all([first, second, third]);
    expect(source.tails).toBe(2); // the first its own; the second and third one between them
  });

  test("past the cap, the least recently used index is dropped; the one in use is kept", async () => {
    const source = new ScriptedSource();
    const registry = new IndexRegistry(source, 0);
    await registry.stats("a");
    await registry.stats("b");
    expect(registry.held().map((held) => held.workspace)).toEqual(["b"]);
    await registry.stats("a");
    expect(source.snapshots).toBe(3);
  });
});
