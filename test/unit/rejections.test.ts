import { describe, expect, test } from "@jest/globals";

import { GraphFold } from "../../src/domain/feed/fold.js";
import { CHANGE_KINDS, type ChangeEvent, describeEvent, entitiesOf } from "../../src/domain/feed/history.js";
import { entityId } from "../../src/domain/model/ids.js";
import { findDuplicates, pairKey } from "../../src/domain/rules/duplicates.js";
import { keyRange, rowKey } from "../../src/storage/rows/keys.js";

/**
 * Rejected duplicate pairs without storage (docs/curate.md#rejecting-a-pair): the key is the same in either order and sits
 * outside every range other reads take; the change kinds are created and deleted only; the fold holds no state for them;
 * history names both entities; detection leaves a rejected pair out before the limit.
 */

const WS = "unit";
const [A, B, C] = ["Alice Smith", "alice_smith", "Bob"].map((name) => entityId(WS, name)) as [string, string, string];
const inRange = (key: string, range: { from: string; to: string }) => key >= range.from && key < range.to;

describe("the rejection's key", () => {
  test("is one key for (a, b) and (b, a), inside the rejections' range and outside the graph, events, feed tail and markers", () => {
    const key = rowKey.rejection(A, B);
    expect(rowKey.rejection(B, A)).toBe(key);
    expect(rowKey.rejection(A, C)).not.toBe(key);
    expect(inRange(key, keyRange.rejections)).toBe(true);
    for (const other of [keyRange.graph, keyRange.events(), keyRange.feedTail(0), keyRange.batchMarkers, keyRange.tagDefinitions]) {
      expect(inRange(key, other)).toBe(false);
    }
    for (const other of [rowKey.factKeys, rowKey.workspace, rowKey.historyPruned, rowKey.event(Date.now(), "abc"), rowKey.entity(A)]) {
      expect(inRange(other, keyRange.rejections)).toBe(false);
    }
  });
});

describe("rejection changes", () => {
  const pair = [
    { entityId: A, entityName: "Alice Smith" },
    { entityId: B, entityName: "alice_smith" },
  ] as [{ entityId: string; entityName: string }, { entityId: string; entityName: string }];
  const event = (kind: "rejection.created" | "rejection.deleted", at: string): ChangeEvent => ({
    id: `~ev~${at}`,
    at,
    principal: "key:k1",
    tool: "reject_duplicate_pair",
    call: at,
    changes: [{ kind, pair }],
  });

  test("are created and deleted, never updated", () => {
    expect(CHANGE_KINDS.filter((kind) => kind.startsWith("rejection."))).toEqual(["rejection.created", "rejection.deleted"]);
  });

  test("touch both entities for history, read as one line each, and change nothing the fold holds", () => {
    expect(entitiesOf(event("rejection.created", "2026-01-01T00:00:00.000Z").changes[0]!)).toEqual([A, B]);
    expect(describeEvent(event("rejection.created", "2026-01-01T00:00:00.000Z"))).toBe(
      "key:k1 via reject_duplicate_pair: rejected duplicate pair 'Alice Smith' ≈ 'alice_smith'",
    );
    expect(describeEvent(event("rejection.deleted", "2026-01-01T00:00:00.000Z"))).toMatch(/forgot rejected duplicate pair 'Alice Smith'/);
    const fold = new GraphFold();
    fold.apply([
      {
        id: "~ev~0",
        at: "2025-12-31T00:00:00.000Z",
        principal: "key:k1",
        tool: "create_entities",
        call: "c0",
        changes: [
          {
            kind: "entity.created",
            entityId: A,
            entityName: "Alice Smith",
            after: { name: "Alice Smith", entityType: "person", metadata: {} },
          },
        ],
      },
    ]);
    const before = JSON.stringify(fold.graph());
    const touched = fold.apply([
      event("rejection.created", "2026-01-01T00:00:00.000Z"),
      event("rejection.deleted", "2026-01-02T00:00:00.000Z"),
    ]);
    expect(touched).toEqual({ entities: new Set(), relations: new Set(), definitions: false });
    expect(JSON.stringify(fold.graph())).toBe(before);
  });
});

describe("detection with rejected pairs", () => {
  const candidate = (name: string) => ({ id: entityId(WS, name), name, entityType: "person", observations: [], neighbours: [] });
  const candidates = ["Alice Smith", "alice_smith", "Acme Corp", "ACME corp"].map(candidate);

  test("a rejected pair is counted and left out before the limit, in either order", async () => {
    const all = await findDuplicates(candidates, { threshold: 0.8, limit: 10 });
    expect(all.pairs).toHaveLength(2);
    expect(all.rejected).toBe(0);
    const rejected = new Set([pairKey(B, A)]);
    const some = await findDuplicates(candidates, { threshold: 0.8, limit: 1, rejected });
    expect(some.pairs.map((pair) => [pair.a.name, pair.b.name].sort())).toEqual([["ACME corp", "Acme Corp"]]);
    expect(some.rejected).toBe(1);
    expect(some.comparisons).toBe(all.comparisons);
  });
});
