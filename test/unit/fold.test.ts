import { describe, expect, test } from "@jest/globals";
import fc from "fast-check";

import { type Change, type ChangeEvent, inFeedOrder } from "../../src/domain/feed/history.js";
import { GraphReplay } from "../../src/domain/feed/replay.js";
import { entityId, observationId } from "../../src/domain/model/ids.js";
import type { Entity, EntityNode, Relation, TagDefinition } from "../../src/domain/model/model.js";
import type { WorkspaceSnapshot } from "../../src/domain/ports/graphIndex.js";
import { WorkspaceIndex } from "../../src/search/workspaceIndex.js";
import { type Held, histories, WORKSPACE, writeHistory } from "./feedWriter.js";

/**
 * One fold of the feed (docs/architecture.md#one-fold-of-the-feed): `read_graph asOf now` (GraphReplay) and the workspace
 * index give one answer for one history, and it is what storage holds after it (feedWriter.ts). The index is fed the way
 * an instance feeds it: from nothing in several tail reads, and from a scan of a prefix with the rest of the feed on top.
 */

const RUNS = Number(process.env.FOLD_RUNS ?? 200);
const SEED = process.env.FOLD_SEED === undefined ? undefined : Number(process.env.FOLD_SEED);
const settings = { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) };

const emptySnapshot = (): WorkspaceSnapshot => ({
  nodes: [],
  tags: [],
  versions: new Map(),
  events: [],
  registry: { present: false },
  position: { readAt: 0, seen: [] },
});

/** A scan of what a replay holds: each entity with the relations it is the source of, and the tag definitions. */
function scanOf(replay: GraphReplay, definitions: readonly TagDefinition[]): WorkspaceSnapshot {
  const { entities, relations } = replay.graph();
  const nodes: EntityNode[] = entities.map((entity) => ({ entity, relations: relations.filter((r) => r.fromEntityId === entity.id) }));
  const versions = new Map(entities.flatMap((entity) => (entity.version !== undefined ? [[entity.id, entity.version] as const] : [])));
  return { ...emptySnapshot(), nodes, tags: [...definitions], versions };
}

const definitionsOf = (held: Held | undefined): TagDefinition[] =>
  [...(held?.definitions ?? [])].map(([name, definition]) => ({ name, ...definition }));

/** Events in the feed's order, cut into tail reads of up to `size`. */
function tailReads(events: readonly ChangeEvent[], size: number): ChangeEvent[][] {
  const ordered = inFeedOrder(events);
  const reads: ChangeEvent[][] = [];
  for (let start = 0; start < ordered.length; start += size) reads.push(ordered.slice(start, start + size));
  return reads;
}

type Normalised = Pick<Entity, "name" | "entityType" | "metadata" | "version" | "observations" | "tags" | "observationTags">;

/** What storage holds, in the shape reads give it. */
function graphOfHeld(held: Held | undefined): {
  entities: Normalised[];
  relations: Omit<Relation, "id" | "createdAt" | "updatedAt" | "order">[];
} {
  const entities = [...(held?.entities.values() ?? [])].map((entity) => ({
    ...entity.state,
    observations: [...entity.observations.keys()],
    tags: [...entity.tags].sort(),
    observationTags: new Map(
      [...entity.observations].filter(([, tags]) => tags.size > 0).map(([content, tags]) => [content, [...tags].sort()]),
    ),
  }));
  return { entities, relations: [...(held?.relations.values() ?? [])] };
}

/** A graph by name, as the checker's normal form has it (ids, times, authors and order left out). */
function normalOf(graph: {
  entities: Normalised[];
  relations: Pick<Relation, "fromName" | "toName" | "relationType" | "metadata" | "version">[];
}) {
  const entities = graph.entities.map((entity) => ({
    name: entity.name,
    entityType: entity.entityType,
    metadata: entity.metadata,
    version: entity.version,
    observations: entity.observations,
    tags: entity.tags,
    observationTags: Object.fromEntries(entity.observationTags),
  }));
  const relations = graph.relations.map((r) => ({
    from: r.fromName,
    to: r.toName,
    relationType: r.relationType,
    metadata: r.metadata,
    version: r.version,
  }));
  return { entities: sortedBy(entities, (e) => e.name), relations: sortedBy(relations, (r) => `${r.from}|${r.relationType}|${r.to}`) };
}

const sortedBy = <T>(items: T[], key: (item: T) => string): T[] =>
  [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));

/** Tag usage as storage's rows give it: every definition, with the entities and observations carrying it. */
function usageOfHeld(held: Held | undefined) {
  const usage = new Map(definitionsOf(held).map((tag) => [tag.name, { ...tag, entities: 0, observations: 0 }]));
  for (const entity of held?.entities.values() ?? []) {
    for (const tag of entity.tags) usage.get(tag)!.entities += 1;
    for (const tags of entity.observations.values()) for (const tag of tags) usage.get(tag)!.observations += 1;
  }
  return sortedBy([...usage.values()], (u) => u.name);
}

/** Asserts that the index answers as the replay does, and as storage holds. */
async function expectSameAnswers(index: WorkspaceIndex, replay: GraphReplay, held: Held | undefined): Promise<void> {
  const asOfNow = replay.graph();
  const page = index.page({});
  expect(page.entities).toEqual(asOfNow.entities);
  expect(page.relations).toEqual(asOfNow.relations);
  expect(index.searchRelations({}, { limit: 1000 }).relations).toEqual(asOfNow.relations);
  expect(normalOf(asOfNow)).toEqual(normalOf(graphOfHeld(held)));
  const ids = asOfNow.entities.map((entity) => entity.id);
  expect(await index.traversal().nodes(WORKSPACE, ids)).toEqual(ids.map((id) => replay.node(id)));
  expect(sortedBy(index.listTags(), (tag) => tag.name)).toEqual(sortedBy(definitionsOf(held), (tag) => tag.name));
  expect(sortedBy(index.tagUsage(), (u) => u.name)).toEqual(usageOfHeld(held));
}

describe("one fold: asOf now and the workspace index agree, with storage", () => {
  test("on generated histories, fed from nothing in tail reads, and from a scan of a prefix", async () => {
    await fc.assert(
      fc.asyncProperty(histories, fc.integer({ min: 1, max: 5 }), fc.nat(), async (steps, readSize, cutAt) => {
        const { events, held } = writeHistory(steps);
        // The feed read out of order (keys chosen by clocks 30 s apart): both put it in commit order.
        const shuffled = [...events].reverse();
        const replay = new GraphReplay().apply(shuffled);

        const fromNothing = WorkspaceIndex.build(emptySnapshot(), undefined);
        for (const read of tailReads(events, readSize)) fromNothing.apply(read);
        await expectSameAnswers(fromNothing, replay, held.at(-1));

        const cut = events.length === 0 ? 0 : cutAt % (events.length + 1);
        const ordered = inFeedOrder(events);
        const scanned = WorkspaceIndex.build(
          scanOf(new GraphReplay().apply(ordered.slice(0, cut)), definitionsOf(held[cut - 1])),
          undefined,
        );
        scanned.apply(ordered.slice(cut));
        await expectSameAnswers(scanned, replay, held.at(-1));
      }),
      settings,
    );
  });
});

const AT = "2026-12-01T10:00:00.000Z";
const event = (n: number, changes: Change[], at = AT): ChangeEvent => ({
  id: `~ev~${String(Date.parse(at)).padStart(13, "0")}~${String(n).padStart(12, "0")}`,
  at,
  committed: `2026-12-01T10:00:01.${String(n).padStart(7, "0")}Z`,
  principal: "key:p",
  tool: "t",
  call: `c${n}`,
  changes,
});
const created = (name: string): Change => ({
  kind: "entity.created",
  entityId: entityId(WORKSPACE, name),
  entityName: name,
  after: { name, entityType: "t", metadata: {} },
});

/** Both folds of the same events, as asOf now and as an index fed them in one tail read. */
function bothFolds(events: ChangeEvent[]): { asOfNow: { entities: Entity[]; relations: Relation[] }; index: WorkspaceIndex } {
  const index = WorkspaceIndex.build(emptySnapshot(), undefined);
  index.apply(events);
  return { asOfNow: new GraphReplay().apply(events).graph(), index };
}

describe("the two rules the folds used to disagree on", () => {
  test("an observation is its row: keyed by observationId, and a change without one by the id its content gives", () => {
    const id = entityId(WORKSPACE, "E");
    const events = [
      event(1, [created("E")]),
      event(2, [
        { kind: "observation.created", entityId: id, entityName: "E", observationId: observationId(id, "kept"), content: "kept" },
        { kind: "observation.created", entityId: id, entityName: "E", observationId: observationId(id, "gone"), content: "gone" },
        // Written without its id (as some tests' events are): the id is the one its content gives.
        { kind: "observation.created", entityId: id, entityName: "E", content: "no id" },
      ]),
      event(3, [
        { kind: "tag.created", entityId: id, entityName: "E", observationId: observationId(id, "no id"), tagName: "t" },
        // The delete names the row by its id: the content it repeats plays no part.
        { kind: "observation.deleted", entityId: id, entityName: "E", observationId: observationId(id, "gone") },
      ]),
    ];
    const { asOfNow, index } = bothFolds(events);
    const expected = { observations: ["kept", "no id"], observationTags: new Map([["no id", ["t"]]]) };
    expect(asOfNow.entities[0]).toMatchObject(expected);
    expect(index.page({}).entities[0]).toMatchObject(expected);
  });

  test("order positions are numbered per event, so two events of one millisecond tie on position and sort by id, as storage sorts two calls stamped in one millisecond", () => {
    const [first, second] = ["P", "Q"].sort((a, b) => (entityId(WORKSPACE, a) > entityId(WORKSPACE, b) ? -1 : 1)) as [string, string];
    // `first` commits first, but its id sorts last: storage's rows (each call numbered from 1) list `second` first.
    const events = [event(1, [created(first)]), event(2, [created(second)])];
    const { asOfNow, index } = bothFolds(events);
    expect(asOfNow.entities.map((entity) => entity.name)).toEqual([second, first]);
    expect(asOfNow.entities.map((entity) => entity.order)).toEqual([`${AT}#000001`, `${AT}#000001`]);
    expect(index.page({}).entities).toEqual(asOfNow.entities);
    // An index that scanned the first event's state and read the second from the feed numbers it the same way.
    const scanned = WorkspaceIndex.build(scanOf(new GraphReplay().apply(events.slice(0, 1)), []), undefined);
    scanned.apply(events.slice(1));
    expect(scanned.page({}).entities).toEqual(asOfNow.entities);
  });
});
