import { describe, expect, test } from "@jest/globals";

import type { Change, ChangeEvent } from "../../src/domain/feed/history.js";
import { GraphReplay } from "../../src/domain/feed/replay.js";
import { entityId, observationId, relationId } from "../../src/domain/model/ids.js";
import type { Entity, Relation, Validity } from "../../src/domain/model/model.js";
import { graphThroughLens, lensOf } from "../../src/domain/rules/validity.js";
import { nodesThroughLens } from "../../src/domain/services/graphService.js";
import { entityValidityOf, relationValidityOf } from "../../src/mcp/graphShapes.js";

/**
 * Bi-temporal reads (docs/history.md#two-times) on a replayed history: what read_graph, open_nodes and
 * get_entity_relations answer with `asOf` (AsOfReads replays the feed up to asOf, then the services look through the lens
 * with heldAt = asOf and the asked validAt). Hand-made events stand in for the writes of supersede_observation,
 * end_relation and set_expiry, in the shapes docs/history.md gives them; every read below is a pair (asOf, validAt)
 * compared with what the timeline says must hold.
 */

const WS = "lens";
const at = (day: string) => Date.parse(`2026-${day}T12:00:00.000Z`);
const iso = (day: string) => new Date(at(day)).toISOString();
const NOW = at("12-01");

const alice = entityId(WS, "Alice");
const acme = entityId(WS, "Acme");
const sprint = entityId(WS, "Sprint");
const worksAt = relationId(WS, alice, "works_at", acme);
const joins = relationId(WS, alice, "joins", sprint);

let sequence = 0;
function event(day: string, changes: Change[]): ChangeEvent {
  sequence += 1;
  const when = iso(day);
  return {
    id: `e${String(sequence).padStart(4, "0")}`,
    at: when,
    committed: when,
    principal: "key:test",
    tool: "test",
    call: `c${sequence}`,
    changes,
  };
}
const entity = (id: string, name: string, entityType: string, validity?: Validity): Change => ({
  kind: "entity.created",
  entityId: id,
  entityName: name,
  after: { name, entityType, metadata: {} },
  ...(validity ? { validity } : {}),
});
const observation = (kind: "observation.created" | "observation.updated", id: string, content: string, validity?: Validity): Change => ({
  kind,
  entityId: id,
  observationId: observationId(id, content),
  content,
  ...(validity ? { validity } : {}),
});
const relation = (
  kind: "relation.created" | "relation.updated",
  id: string,
  from: [string, string],
  type: string,
  to: [string, string],
  validity?: Validity,
): Change => ({
  kind,
  relationId: id,
  after: { fromEntityId: from[0], fromName: from[1], toEntityId: to[0], toName: to[1], relationType: type, metadata: {} },
  ...(validity ? { validity } : {}),
});

/** The timeline: the two-times diagram of docs/history.md, an ended relation, expiry and a pin. */
const HISTORY: ChangeEvent[] = [
  event("01-01", [
    entity(alice, "Alice", "person"),
    entity(acme, "Acme", "company"),
    observation("observation.created", alice, "lead: Alice"),
    relation("relation.created", worksAt, [alice, "Alice"], "works_at", [acme, "Acme"], { validFrom: iso("01-01") }),
  ]),
  // Mar 3: supersede_observation, backdated to Mar 1.
  event("03-03", [
    observation("observation.updated", alice, "lead: Alice", { validTo: iso("03-01"), supersededBy: "lead: Bob" }),
    observation("observation.created", alice, "lead: Bob", { validFrom: iso("03-01") }),
  ]),
  // Apr 1: end_relation.
  event("04-01", [relation("relation.updated", worksAt, [alice, "Alice"], "works_at", [acme, "Acme"], { validTo: iso("04-01") })]),
  // May 1: a sprint's facts, expiring May 15; one pinned.
  event("05-01", [
    entity(sprint, "Sprint", "sprint", { expiresAt: iso("05-15") }),
    observation("observation.created", alice, "sprint: 12", { expiresAt: iso("05-15") }),
    observation("observation.created", alice, "desk: 4", { expiresAt: iso("05-15") }),
    relation("relation.created", joins, [alice, "Alice"], "joins", [sprint, "Sprint"]),
  ]),
  event("05-02", [observation("observation.updated", alice, "desk: 4", { pinned: true })]),
];

/** The graph as of `asOf` (held then) true at `validAt`, as the services read it. */
function read(asOf: string, options: { validAt?: string; includeSuperseded?: boolean } = {}) {
  const lens = lensOf(
    { asOf: iso(asOf), includeSuperseded: options.includeSuperseded, ...(options.validAt ? { validAt: iso(options.validAt) } : {}) },
    NOW,
  );
  const held = new GraphReplay().apply(HISTORY.filter((e) => Date.parse(e.committed!) <= lens.heldAt)).graph();
  return { ...graphThroughLens(held, lens), lens };
}
const observationsOf = (graph: { entities: Entity[] }, name = "Alice") => graph.entities.find((e) => e.name === name)?.observations;
const relationTypes = (graph: { relations: Relation[] }) => graph.relations.map((r) => r.relationType).sort();

describe("asOf × validAt on a replayed history", () => {
  // [asOf, validAt, Alice's observations, relation types, entities]
  const pairs: [string, string | undefined, string[], string[], string[]][] = [
    ["02-01", undefined, ["lead: Alice"], ["works_at"], ["Acme", "Alice"]],
    ["03-02", undefined, ["lead: Alice"], ["works_at"], ["Acme", "Alice"]], // the supersession was not written yet
    ["03-02", "03-02", ["lead: Alice"], ["works_at"], ["Acme", "Alice"]], // held then: nothing said Alice ended
    ["03-04", undefined, ["lead: Bob"], ["works_at"], ["Acme", "Alice"]],
    ["03-04", "02-15", ["lead: Alice"], ["works_at"], ["Acme", "Alice"]], // as held on Mar 4, true on Feb 15
    ["03-04", "03-02", ["lead: Bob"], ["works_at"], ["Acme", "Alice"]], // backdated: Bob from Mar 1
    ["04-02", undefined, ["lead: Bob"], [], ["Acme", "Alice"]], // works_at ended Apr 1
    ["04-02", "03-15", ["lead: Bob"], ["works_at"], ["Acme", "Alice"]],
    ["05-10", undefined, ["lead: Bob", "sprint: 12", "desk: 4"], ["joins"], ["Acme", "Alice", "Sprint"]],
    ["05-20", undefined, ["lead: Bob", "desk: 4"], [], ["Acme", "Alice"]], // expired May 15: sprint facts gone, the pin stays
    ["05-20", "05-10", ["lead: Bob", "desk: 4"], [], ["Acme", "Alice"]], // expiry is judged at asOf, whatever validAt
    ["04-02", "01-15", ["lead: Alice"], ["works_at"], ["Acme", "Alice"]], // Bob was not lead yet then
  ];
  test.each(pairs)("asOf %s, validAt %s", (asOf, validAt, observations, relations, entities) => {
    const graph = read(asOf, { ...(validAt ? { validAt } : {}) });
    expect(observationsOf(graph)).toEqual(observations);
    expect(relationTypes(graph)).toEqual(relations);
    expect(graph.entities.map((e) => e.name).sort()).toEqual(entities);
  });

  test("includeSuperseded returns what is not true, each marked, but never what expired", () => {
    const graph = read("05-20", { includeSuperseded: true });
    expect(observationsOf(graph)).toEqual(["lead: Alice", "lead: Bob", "desk: 4"]);
    const alice = graph.entities.find((e) => e.name === "Alice")!;
    expect(entityValidityOf(alice, graph.lens).observationValidity).toEqual({
      "lead: Alice": { validTo: iso("03-01"), supersededBy: "lead: Bob", status: "superseded" },
      "lead: Bob": { validFrom: iso("03-01") },
      "desk: 4": { expiresAt: iso("05-15"), pinned: true },
    });
    expect(graph.relations.map((r) => [r.relationType, relationValidityOf(r, graph.lens).status])).toEqual([["works_at", "ended"]]);
    expect(graph.entities.map((e) => e.name)).not.toContain("Sprint");
  });

  test("a fact not yet valid at validAt is marked so with includeSuperseded", () => {
    const graph = read("03-04", { validAt: "02-15", includeSuperseded: true });
    const alice = graph.entities.find((e) => e.name === "Alice")!;
    expect(alice.observations).toEqual(["lead: Alice", "lead: Bob"]);
    expect(entityValidityOf(alice, graph.lens).observationValidity?.["lead: Bob"]?.status).toBe("not-yet-valid");
    // Superseded later, but true at Feb 15: current then, so no status.
    expect(entityValidityOf(alice, graph.lens).observationValidity?.["lead: Alice"]?.status).toBeUndefined();
  });
});

describe("nodesThroughLens (open_nodes, search_nodes)", () => {
  const held = new GraphReplay().apply(HISTORY);
  test("an expired entity is absent, and so are relations to it; an ended relation needs includeSuperseded", () => {
    const lens = lensOf({}, at("05-20"));
    const nodes = nodesThroughLens([held.node(alice), held.node(sprint), undefined], lens);
    expect(nodes.map((node) => node.entity.name)).toEqual(["Alice"]);
    expect(nodes[0]!.relations).toEqual([]);
    const all = nodesThroughLens([held.node(alice), held.node(sprint)], lensOf({ includeSuperseded: true }, at("05-20")));
    expect(all[0]!.relations.map((r) => r.relationType)).toEqual(["works_at"]);
  });
  test("before the expiry, the entity and its relation show", () => {
    const nodes = nodesThroughLens([held.node(alice), held.node(sprint)], lensOf({}, at("05-10")));
    expect(nodes.map((node) => node.entity.name)).toEqual(["Alice", "Sprint"]);
    expect(nodes[0]!.relations.map((r) => r.relationType)).toEqual(["joins"]);
  });
});
