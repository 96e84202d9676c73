import { randomUUID } from "node:crypto";

import { describe, expect, test } from "@jest/globals";

import { relationRowKeys, rowKey, tagLinkKeys } from "../../src/storage/rows/keys.js";
import type { StoredRow } from "../../src/storage/rows/rows.js";
import { plan, waves } from "../../src/storage/writes/workspaceDeletion.js";

/**
 * How delete_workspace orders its deletes (src/storage/writes/workspaceDeletion.ts): every row in exactly one transaction of at
 * most 100, and nothing deleted before (in an earlier wave than) a row that hangs off it, for random workspaces.
 */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

interface Workspace {
  rows: StoredRow[];
  /** [a row, a row it hangs off]: the second must not go before the first. */
  hangsOff: [string, string][];
}

function workspace(seed: number, entities: number): Workspace {
  const random = seeded(seed);
  const rows: StoredRow[] = [];
  const hangsOff: [string, string][] = [];
  const add = (row: Record<string, unknown>) => rows.push({ etag: `W/"${rows.length}"`, ...row } as unknown as StoredRow);
  const ids = Array.from({ length: entities }, () => randomUUID());
  const tags = Array.from({ length: 5 }, () => randomUUID());
  for (const tagId of tags) add({ rowKey: rowKey.tag(tagId), kind: "tag" });
  const tag = (entityId: string, tagId: string, observationId?: string) => {
    const { link, index } = tagLinkKeys({ entityId, ...(observationId ? { observationId } : {}) }, tagId);
    const fields = { tagId, entityId, ...(observationId ? { observationId } : {}) };
    add({ rowKey: link, kind: observationId ? "observation-tag" : "entity-tag", ...fields });
    add({ rowKey: index, kind: "tag-index", ...fields });
    hangsOff.push([link, entityId], [index, entityId], [link, rowKey.tag(tagId)], [index, rowKey.tag(tagId)]);
    if (observationId) hangsOff.push([link, rowKey.observation(entityId, observationId)]);
  };
  for (const id of ids) {
    add({ rowKey: id, kind: "entity" });
    const observations = Math.floor(random() * 6);
    for (let k = 0; k < observations; k++) {
      const observationId = randomUUID();
      const key = rowKey.observation(id, observationId);
      add({ rowKey: key, kind: "observation", entityId: id });
      hangsOff.push([key, id]);
      // Now and then an observation with more tags than fit one transaction with it.
      const tagCount = random() < 0.05 ? 60 : Math.floor(random() * 3);
      for (let t = 0; t < tagCount; t++) {
        if (t >= tags.length) {
          tags.push(randomUUID());
          add({ rowKey: rowKey.tag(tags[t]!), kind: "tag" });
        }
        tag(id, tags[t]!, observationId);
      }
    }
    if (random() < 0.3) tag(id, tags[Math.floor(random() * 5)]!);
  }
  for (let r = 0; r < entities * 1.5; r++) {
    const [from, to] = [ids[Math.floor(random() * entities)]!, ids[Math.floor(random() * entities)]!];
    const id = randomUUID();
    const keys = relationRowKeys({ id, fromEntityId: from, toEntityId: to });
    keys.forEach((key, i) => add({ rowKey: key, kind: ["relation", "edge-out", "edge-in"][i], relationId: id, fromId: from, toId: to }));
    for (const key of keys) hangsOff.push([key, from], [key, to]);
  }
  for (let e = 0; e < 20; e++) add({ rowKey: rowKey.event(1_700_000_000_000 + e, "x"), kind: "event" });
  rows.sort((a, b) => (String(a.rowKey) < String(b.rowKey) ? -1 : 1));
  return { rows, hangsOff };
}

describe("delete_workspace's plan", () => {
  test.each([1, 2, 3, 4, 5, 6, 7, 8])("seed %i: each row once, at most 100 per transaction, no row before what hangs off it", (seed) => {
    const { rows, hangsOff } = workspace(seed, 20 + seed * 15);
    const ordered = waves(plan(rows));
    const where = new Map<string, { wave: number; chunk: number }>();
    const twice: string[] = [];
    const sizes: number[] = [];
    ordered.forEach((chunks, wave) =>
      chunks.forEach((chunk) => {
        const keys = chunk.units.flatMap((unit) => unit.keys);
        sizes.push(keys.length);
        for (const key of keys) {
          if (where.has(key)) twice.push(key);
          where.set(key, { wave, chunk: sizes.length });
        }
      }),
    );
    const chunkCount = sizes.length;
    expect(twice).toEqual([]);
    expect(sizes.filter((size) => size > 100)).toEqual([]);
    expect([...where.keys()].sort()).toEqual(rows.map((row) => String(row.rowKey)).sort());
    const early = hangsOff.filter(([dependent, parent]) => {
      const [d, p] = [where.get(dependent)!, where.get(parent)!];
      return d.chunk !== p.chunk && d.wave >= p.wave;
    });
    expect(early).toEqual([]);
    // As many transactions as the rows need, give or take the gaps three-row relations leave.
    expect(chunkCount).toBeLessThanOrEqual(Math.ceil(rows.length / 100) + 1);
  });

  test("a relation or tag pair with rows that were not read is a transaction of its own, listing the rows that were", () => {
    const [from, to, id] = [randomUUID(), randomUUID(), randomUUID()];
    const edge = { rowKey: rowKey.edgeOut(from, id), kind: "edge-out", relationId: id, fromId: from, toId: to, etag: "e" };
    const units = plan([{ rowKey: from, kind: "entity", etag: "f" }, edge] as unknown as StoredRow[]);
    expect(units).toEqual([
      { keys: [from], conditions: [[from, "f"]], level: 2 },
      { keys: relationRowKeys({ id, fromEntityId: from, toEntityId: to }), conditions: [], level: 0, read: [edge.rowKey] },
    ]);
    expect(waves(units).map((wave) => wave.map((chunk) => chunk.units.length))).toEqual([[1], [1]]);
  });
});
