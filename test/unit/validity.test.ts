import { describe, expect, test } from "@jest/globals";

import { GraphFold } from "../../src/domain/feed/fold.js";
import type { ChangeEvent } from "../../src/domain/feed/history.js";
import { ValidationError } from "../../src/domain/model/errors.js";
import { observationId } from "../../src/domain/model/ids.js";
import { CLOCK_SKEW_ALLOWANCE_MS } from "../../src/domain/model/limits.js";
import type { Entity } from "../../src/domain/model/model.js";
import {
  checkFactKey,
  checkValidityInput,
  entityThroughLens,
  factOf,
  graphThroughLens,
  heldValidity,
  lensOf,
  patchValidity,
  presentLens,
  shows,
  singleValuedFactOf,
  statusOf,
} from "../../src/domain/rules/validity.js";

/** The pure rules of the two times (docs/history.md#two-times): statuses, lenses, input checks, fact keys, and the fold. */

const NOW = Date.parse("2026-12-02T12:00:00.000Z");
const at = (iso: string) => Date.parse(iso);

describe("statusOf through a lens", () => {
  const now = presentLens(NOW);
  test("no validity is current; an expiry passed is expired unless pinned, whatever valid time is asked", () => {
    expect(statusOf(undefined, now)).toBe("current");
    expect(statusOf({ expiresAt: "2026-12-02T11:59:59.999Z" }, now)).toBe("expired");
    expect(statusOf({ expiresAt: "2026-12-02T12:00:00.000Z" }, now)).toBe("expired");
    expect(statusOf({ expiresAt: "2026-12-02T12:00:00.001Z" }, now)).toBe("current");
    expect(statusOf({ expiresAt: "2026-12-01T00:00:00Z", pinned: true }, now)).toBe("current");
    expect(statusOf({ expiresAt: "2026-12-01T00:00:00Z" }, { ...now, validAt: at("2020-01-01"), includeSuperseded: true })).toBe("expired");
    // As held before it expired, it was there.
    expect(statusOf({ expiresAt: "2026-12-01T00:00:00Z" }, presentLens(at("2026-11-30")))).toBe("current");
  });
  test("superseded is superseded now whatever validTo says; at an explicit validAt it held within its interval", () => {
    const superseded = { validFrom: "2025-01-01T00:00:00.000Z", validTo: "2026-01-01T00:00:00.000Z", supersededBy: "b" };
    expect(statusOf(superseded, now)).toBe("superseded");
    expect(statusOf({ ...superseded, validTo: new Date(NOW + CLOCK_SKEW_ALLOWANCE_MS - 1).toISOString() }, now)).toBe("superseded");
    // A supersession dated ahead has not taken effect yet: the old fact holds until then.
    expect(statusOf({ ...superseded, validTo: "2027-01-01T00:00:00.000Z" }, now)).toBe("current");
    expect(statusOf(superseded, { ...now, validAt: at("2025-06-01") })).toBe("current");
    expect(statusOf(superseded, { ...now, validAt: at("2026-01-01") })).toBe("superseded");
    expect(statusOf(superseded, { ...now, validAt: at("2024-06-01") })).toBe("not-yet-valid");
  });
  test("ended and not yet valid; without validAt, now allows for the clock skew between instances", () => {
    const endsSoon = { validTo: new Date(NOW + CLOCK_SKEW_ALLOWANCE_MS - 1).toISOString() };
    expect(statusOf(endsSoon, now)).toBe("ended");
    expect(statusOf({ validTo: new Date(NOW + CLOCK_SKEW_ALLOWANCE_MS + 1).toISOString() }, now)).toBe("current");
    expect(statusOf(endsSoon, { ...now, validAt: NOW })).toBe("current");
    expect(statusOf({ validFrom: "2027-01-01T00:00:00Z" }, now)).toBe("not-yet-valid");
    expect(statusOf({ validFrom: new Date(NOW + 10_000).toISOString() }, now)).toBe("current");
  });
  test("shows: current, or anything but expired with includeSuperseded", () => {
    const all = { ...presentLens(NOW), includeSuperseded: true };
    expect(shows({ supersededBy: "x", validTo: "2026-01-01T00:00:00Z" }, presentLens(NOW))).toBe(false);
    expect(shows({ supersededBy: "x", validTo: "2026-01-01T00:00:00Z" }, all)).toBe(true);
    expect(shows({ expiresAt: "2026-01-01T00:00:00Z" }, all)).toBe(false);
  });
  test("lensOf reads asOf and validAt, and refuses a time that is not ISO 8601", () => {
    expect(lensOf({}, NOW)).toEqual({ heldAt: NOW, includeSuperseded: false });
    expect(lensOf({ asOf: "2026-01-01", validAt: "2025-01-01", includeSuperseded: true }, NOW)).toEqual({
      heldAt: at("2026-01-01"),
      validAt: at("2025-01-01"),
      includeSuperseded: true,
    });
    expect(() => lensOf({ validAt: "yesterday" }, NOW)).toThrow(ValidationError);
  });
});

describe("entities and graphs through a lens", () => {
  const entity = (fields: Partial<Entity> = {}): Entity => ({
    id: "e1",
    name: "payments",
    entityType: "team",
    observations: ["lead: Alice", "lead: Bob", "budget: 100"],
    tags: [],
    observationTags: new Map([["lead: Alice", ["hr"]]]),
    observationValidity: new Map([["lead: Alice", { validTo: "2026-11-01T00:00:00.000Z", supersededBy: "lead: Bob" }]]),
    metadata: {},
    createdAt: "2026-10-01T00:00:00.000Z",
    updatedAt: "2026-10-01T00:00:00.000Z",
    order: "o",
    ...fields,
  });
  test("a superseded observation leaves, with its tags; with includeSuperseded it stays", () => {
    const seen = entityThroughLens(entity(), presentLens(NOW))!;
    expect(seen.observations).toEqual(["lead: Bob", "budget: 100"]);
    expect(seen.observationTags.size).toBe(0);
    expect(seen.observationValidity?.size).toBe(0);
    expect(entityThroughLens(entity(), { ...presentLens(NOW), includeSuperseded: true })!.observations).toHaveLength(3);
  });
  test("at a validAt, observations without validFrom hold from when the entity was written", () => {
    const before = entityThroughLens(entity(), { ...presentLens(NOW), validAt: at("2026-09-01") })!;
    expect(before.observations).toEqual([]);
    const during = entityThroughLens(entity(), { ...presentLens(NOW), validAt: at("2026-10-15") })!;
    expect(during.observations).toEqual(["lead: Alice", "lead: Bob", "budget: 100"]);
  });
  test("an expired entity is gone, and so is every relation touching it; an ended relation leaves", () => {
    const gone = entity({ id: "e2", name: "sprint", expiresAt: "2026-12-01T00:00:00.000Z" });
    const relation = (id: string, from: string, to: string, fields = {}) => ({
      id,
      fromEntityId: from,
      fromName: from,
      toEntityId: to,
      toName: to,
      relationType: "r",
      metadata: {},
      createdAt: "2026-10-01T00:00:00.000Z",
      updatedAt: "2026-10-01T00:00:00.000Z",
      order: id,
      ...fields,
    });
    const graph = graphThroughLens(
      {
        entities: [entity(), gone],
        relations: [
          relation("r1", "e1", "e2"),
          relation("r2", "e1", "e1"),
          relation("r3", "e1", "e1", { validTo: "2026-11-01T00:00:00Z" }),
        ],
      },
      presentLens(NOW),
    );
    expect(graph.entities.map((e) => e.name)).toEqual(["payments"]);
    expect(graph.relations.map((r) => r.id)).toEqual(["r2"]);
  });
});

describe("what a write may set", () => {
  test("times are normalised; validTo must follow validFrom (or now); an expiry must be in the future", () => {
    expect(checkValidityInput({ validFrom: "2025-01-01", validTo: "2026-01-01" }, NOW)).toEqual({
      validFrom: "2025-01-01T00:00:00.000Z",
      validTo: "2026-01-01T00:00:00.000Z",
    });
    expect(checkValidityInput({}, NOW)).toBeUndefined();
    expect(() => checkValidityInput({ validFrom: "2026-05-01", validTo: "2026-04-01" }, NOW)).toThrow(/validTo .* must be after validFrom/);
    expect(() => checkValidityInput({ validTo: "2026-04-01" }, NOW)).toThrow(/after now/);
    expect(() => checkValidityInput({ expiresAt: "2026-12-02T11:00:00Z" }, NOW)).toThrow(/not in the future/);
    expect(checkValidityInput({ ttlSeconds: 60 }, NOW)).toEqual({ expiresAt: "2026-12-02T12:01:00.000Z" });
    expect(() => checkValidityInput({ ttlSeconds: 0 }, NOW)).toThrow(ValidationError);
    expect(() => checkValidityInput({ ttlSeconds: 1.5 }, NOW)).toThrow(ValidationError);
    expect(() => checkValidityInput({ ttlSeconds: 60, expiresAt: "2027-01-01" }, NOW)).toThrow(/not both/);
  });
  test("a patch clears with empty strings and pinned: false", () => {
    const held = { validFrom: "a", expiresAt: "b", pinned: true };
    expect(patchValidity(held, { expiresAt: "", pinned: false })).toEqual({ validFrom: "a" });
    expect(patchValidity(held, undefined)).toBe(held);
    expect(heldValidity({ validFrom: "", pinned: false })).toBeUndefined();
  });
});

describe("fact keys", () => {
  test("key: value, key compared without case, value trimmed; other text is no fact", () => {
    expect(factOf("Owner:  Alice ")).toEqual({ key: "owner", value: "Alice" });
    expect(factOf("status: in review: blocked")).toEqual({ key: "status", value: "in review: blocked" });
    expect(factOf("no colon here")).toBeUndefined();
    expect(factOf("2026: a year")).toBeUndefined();
    expect(factOf("two words: x")).toBeUndefined();
  });
  test("a single-valued key needs a value; keys are checked", () => {
    const keys = new Set(["owner"]);
    expect(singleValuedFactOf("owner: Bob", keys, "o")).toEqual({ key: "owner", value: "Bob" });
    expect(singleValuedFactOf("lead: Bob", keys, "o")).toBeUndefined();
    expect(() => singleValuedFactOf("owner:  ", keys, "o")).toThrow(/without a value/);
    expect(checkFactKey("team.lead", "k")).toBe("team.lead");
    expect(() => checkFactKey("1st", "k")).toThrow(ValidationError);
    expect(() => checkFactKey("has space", "k")).toThrow(ValidationError);
  });
});

describe("the fold carries validity", () => {
  const E1 = "0b6a8f0e-1f4e-5d3a-9c1b-2a3b4c5d6e7f";
  const event = (at: string, changes: ChangeEvent["changes"]): ChangeEvent => ({
    id: `~ev~${at}`,
    at,
    committed: at,
    principal: "p",
    tool: "t",
    call: at,
    changes,
  });
  const state = { name: "payments", entityType: "team", metadata: {} };
  test("observation validity set on creation, patched by updates, cleared on delete; entity and relation patches", () => {
    const fold = new GraphFold();
    const alice = observationId(E1, "lead: Alice");
    fold.apply([
      event("2026-01-01T00:00:00.000Z", [
        { kind: "entity.created", entityId: E1, after: state, validity: { expiresAt: "2027-01-01T00:00:00.000Z" } },
        {
          kind: "observation.created",
          entityId: E1,
          observationId: alice,
          content: "lead: Alice",
          validity: { validFrom: "2025-01-01T00:00:00.000Z" },
        },
        {
          kind: "relation.created",
          relationId: "r1",
          after: { fromEntityId: E1, fromName: "payments", toEntityId: E1, toName: "payments", relationType: "self", metadata: {} },
          validity: { expiresAt: "2027-01-01T00:00:00.000Z" },
        },
      ]),
      event("2026-02-01T00:00:00.000Z", [
        {
          kind: "observation.updated",
          entityId: E1,
          observationId: alice,
          content: "lead: Alice",
          validity: { validTo: "2026-02-01T00:00:00.000Z", supersededBy: "lead: Bob" },
        },
        { kind: "entity.updated", entityId: E1, after: state, validity: { expiresAt: "", pinned: true } },
        {
          kind: "relation.updated",
          relationId: "r1",
          after: { fromEntityId: E1, fromName: "payments", toEntityId: E1, toName: "payments", relationType: "self" },
          validity: { validTo: "2026-03-01T00:00:00.000Z", expiresAt: "" },
        },
      ]),
    ]);
    const { entities, relations } = fold.graph();
    expect(entities[0]!.observationValidity?.get("lead: Alice")).toEqual({
      validFrom: "2025-01-01T00:00:00.000Z",
      validTo: "2026-02-01T00:00:00.000Z",
      supersededBy: "lead: Bob",
    });
    expect(entities[0]).toMatchObject({ pinned: true });
    expect(entities[0]!.expiresAt).toBeUndefined();
    expect(relations[0]).toMatchObject({ validTo: "2026-03-01T00:00:00.000Z" });
    expect(relations[0]!.expiresAt).toBeUndefined();
    fold.apply([
      event("2026-03-01T00:00:00.000Z", [{ kind: "observation.deleted", entityId: E1, observationId: alice, content: "lead: Alice" }]),
    ]);
    expect(fold.graph().entities[0]!.observationValidity).toBeUndefined();
  });
  test("a scanned entity's observation validity is kept when the feed then names the observation by id", () => {
    const fold = new GraphFold();
    fold.putEntity({
      id: E1,
      ...state,
      observations: ["owner: A"],
      tags: [],
      observationTags: new Map(),
      observationValidity: new Map([["owner: A", { expiresAt: "2027-01-01T00:00:00.000Z" }]]),
      createdAt: "x",
      updatedAt: "x",
      order: "x",
    });
    const id = observationId(E1, "owner: A");
    fold.apply([
      event("2026-03-01T00:00:00.000Z", [
        { kind: "observation.updated", entityId: E1, observationId: id, content: "owner: A", validity: { pinned: true } },
      ]),
    ]);
    expect(fold.graph().entities[0]!.observationValidity?.get("owner: A")).toEqual({ expiresAt: "2027-01-01T00:00:00.000Z", pinned: true });
  });
});
