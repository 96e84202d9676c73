import { describe, expect, test } from "@jest/globals";

import { type ChangeEvent, commitStamp, feedPlace, inFeedOrder } from "../../src/domain/feed/history.js";
import { GraphReplay } from "../../src/domain/feed/replay.js";

/** The feed's order (docs/architecture.md#the-feeds-order): commit time, then key; never the writer's clock. */

const A = "00000000-0000-5000-8000-00000000000a";

function event(id: string, committed: string | undefined, metadata: Record<string, unknown>): ChangeEvent {
  return {
    id,
    at: "2026-01-01T00:00:00.000Z",
    ...(committed !== undefined ? { committed } : {}),
    principal: "key:test",
    tool: "upsert_entity",
    call: id,
    changes: [{ kind: "entity.updated", entityId: A, entityName: "A", after: { name: "A", entityType: "t", metadata } }],
  };
}

describe("commitStamp", () => {
  test("gives every ISO time 7 fractional digits, so times compare as text", () => {
    expect(commitStamp("2026-12-02T04:41:51Z")).toBe("2026-12-02T04:41:51.0000000Z");
    expect(commitStamp("2026-12-02T04:41:51.12Z")).toBe("2026-12-02T04:41:51.1200000Z");
    expect(commitStamp("2026-12-02T04:41:51.1231234Z")).toBe("2026-12-02T04:41:51.1231234Z");
    expect(commitStamp(new Date(Date.UTC(2026, 11, 2, 4, 41, 51, 123)))).toBe("2026-12-02T04:41:51.1230000Z");
    expect(commitStamp("yesterday")).toBeUndefined();
    expect(commitStamp(undefined)).toBeUndefined();
    expect(commitStamp("2026-12-02T04:41:51.9Z")! > commitStamp("2026-12-02T04:41:51.1231234Z")!).toBe(true);
  });
});

describe("inFeedOrder", () => {
  test("orders by commit time, then key, whatever the keys say", () => {
    // The first key was chosen by a writer whose clock ran 30 s ahead; it committed last.
    const early = event("~ev~1767225630000~aaaaaaaaaaaa", "2026-01-01T00:00:02.0000000Z", { v: "last" });
    const late = event("~ev~1767225600000~bbbbbbbbbbbb", "2026-01-01T00:00:01.0000000Z", { v: "first" });
    const tieLow = event("~ev~1767225600000~000000000000", "2026-01-01T00:00:01.5000000Z", { v: "tie 1" });
    const tieHigh = event("~ev~1767225600000~ffffffffffff", "2026-01-01T00:00:01.5000000Z", { v: "tie 2" });
    expect(inFeedOrder([early, tieHigh, late, tieLow]).map((e) => e.id)).toEqual([late.id, tieLow.id, tieHigh.id, early.id]);
    expect(feedPlace(late) < feedPlace(early)).toBe(true);
  });

  test("GraphReplay folds in that order: the last commit wins", () => {
    const committedLast = event("~ev~1767225600000~aaaaaaaaaaaa", "2026-01-01T00:00:05.0000000Z", { v: "stored" });
    const committedFirst = event("~ev~1767225630000~bbbbbbbbbbbb", "2026-01-01T00:00:04.0000000Z", { v: "overwritten" });
    const create: ChangeEvent = {
      ...event("~ev~1767225500000~cccccccccccc", "2026-01-01T00:00:03.0000000Z", {}),
      changes: [{ kind: "entity.created", entityId: A, entityName: "A", after: { name: "A", entityType: "t", metadata: {} } }],
    };
    const graph = new GraphReplay().apply([committedLast, create, committedFirst]).graph();
    expect(graph.entities.map((entity) => entity.metadata)).toEqual([{ v: "stored" }]);
  });
});
