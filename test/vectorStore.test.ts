import { createHash } from "node:crypto";

import { beforeAll, describe, expect, test } from "@jest/globals";

import { modelKey, vectorPartition } from "../src/storage/rows/keys.js";
import { connectStorage, type StorageConnection } from "../src/storage/table/client.js";
import { TableVectorStore } from "../src/storage/vectorStore.js";
import { emptyVectors } from "../src/storage/writes/workspaceDeletion.js";
import { TEST_TABLE, testConnectionString, uniqueWorkspace } from "./support/harness.js";
import { partitionRows, rawTable } from "./support/rawRows.js";

/**
 * TableVectorStore on the real Azurite: what is saved loads back bit for bit, models and workspaces are kept apart, and the
 * requests are what the port promises (one range read per 1,000 rows, one transaction per 100), counted by the connection's
 * own request counter.
 */
let storage: StorageConnection;
let store: TableVectorStore;

beforeAll(async () => {
  storage = connectStorage({ kind: "connectionString", connectionString: testConnectionString(), tableName: TEST_TABLE, source: "test" });
  store = new TableVectorStore(storage.gateway);
  await storage.ensureTable();
});

const MODEL = "endpoint:text-embedding-3-small@8";
/** A model id holding characters no key may hold. */
const OTHER_MODEL = "endpoint:org/embed#v2?x@8";

const keyOf = (text: string) => createHash("sha256").update(text, "utf8").digest("hex").slice(0, 32);

/** `count` vectors of `dimensions` with awkward values: negatives, subnormals, extremes, and not unit length. */
function vectors(count: number, dimensions = 8, seed = 1): Map<string, Float32Array> {
  const made = new Map<string, Float32Array>();
  for (let i = 0; i < count; i++) {
    const vector = new Float32Array(dimensions);
    for (let d = 0; d < dimensions; d++) vector[d] = Math.sin(seed * 7919 + i * 31 + d) * 10 ** ((d % 5) - 2);
    vector[0] = i % 3 === 0 ? -0 : vector[0]!;
    if (dimensions > 2) vector[1] = i % 2 === 0 ? 1.4e-45 : -3.4028234663852886e38;
    made.set(keyOf(`text ${seed} ${i}`), vector);
  }
  return made;
}

/** Bit-for-bit comparison (toEqual would call -0 and 0 equal). */
function expectSame(actual: Map<string, Float32Array>, expected: ReadonlyMap<string, Float32Array>) {
  expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [key, vector] of expected) {
    expect(Buffer.from(actual.get(key)!.buffer).equals(Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength))).toBe(true);
  }
}

/** The storage requests `work` makes. */
async function requests(work: () => Promise<unknown>): Promise<number> {
  const before = storage.counter.total;
  await work();
  return storage.counter.total - before;
}

describe("TableVectorStore", () => {
  test("save then load: every vector back exactly, in one transaction and one read", async () => {
    const workspace = uniqueWorkspace("vec");
    const saved = vectors(3);
    expect(await requests(() => store.save(workspace, MODEL, saved))).toBe(1);
    let loaded = new Map<string, Float32Array>();
    expect(await requests(async () => (loaded = await store.load(workspace, MODEL)))).toBe(1);
    expectSame(loaded, saved);
  });

  test("rows of their own: partition ~vectors~{workspace}, key {modelKey}~{textKey}, the vector as binary Float32 little-endian", async () => {
    const workspace = uniqueWorkspace("vec");
    const saved = vectors(2, 4);
    await store.save(workspace, OTHER_MODEL, saved);
    expect(await partitionRows(rawTable(), workspace)).toEqual([]);
    const rows = await partitionRows(rawTable(), vectorPartition(workspace));
    expect(rows.map((row) => row.rowKey).sort()).toEqual([...saved.keys()].map((key) => `${modelKey(OTHER_MODEL)}~${key}`).sort());
    expect(modelKey(OTHER_MODEL)).toMatch(/^[0-9a-f]{16}$/);
    for (const row of rows) {
      expect(row).toMatchObject({ kind: "vector", model: OTHER_MODEL });
      const bytes = row.vector as Uint8Array;
      const vector = saved.get(row.rowKey.slice(17))!;
      expect(bytes).toBeInstanceOf(Uint8Array);
      expect(bytes.byteLength).toBe(16);
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      vector.forEach((value, d) => expect(Object.is(view.getFloat32(d * 4, true), value)).toBe(true));
    }
  });

  test("two models' vectors of the same texts are kept apart, and saving one model's again replaces only its own", async () => {
    const workspace = uniqueWorkspace("vec");
    const first = vectors(5, 8, 1);
    const second = new Map([...vectors(5, 8, 2).values()].map((vector, i) => [[...first.keys()][i]!, vector]));
    await store.save(workspace, MODEL, first);
    await store.save(workspace, OTHER_MODEL, second);
    expectSame(await store.load(workspace, MODEL), first);
    expectSame(await store.load(workspace, OTHER_MODEL), second);
    // Saving the same key again (a rebuilt index, another instance) is an upsert: no conflict, the one row.
    const again = new Map([[[...first.keys()][0]!, second.get([...first.keys()][0]!)!]]);
    await store.save(workspace, MODEL, again);
    expectSame(await store.load(workspace, MODEL), new Map([...first, ...again]));
    expectSame(await store.load(workspace, OTHER_MODEL), second);
    expect(await store.load(workspace, "endpoint:never-used@8")).toEqual(new Map());
  });

  test("250 vectors are 3 transactions, loaded in one read; a workspace sees only its own", async () => {
    const [mine, theirs] = [uniqueWorkspace("vec"), uniqueWorkspace("vec")];
    const saved = vectors(250, 16, 3);
    expect(await requests(() => store.save(mine, MODEL, saved))).toBe(3);
    await store.save(theirs, MODEL, vectors(4, 16, 4));
    let loaded = new Map<string, Float32Array>();
    expect(await requests(async () => (loaded = await store.load(mine, MODEL)))).toBe(1);
    expectSame(loaded, saved);
    expectSame(await store.load(theirs, MODEL), vectors(4, 16, 4));
    expect(await requests(() => store.load(uniqueWorkspace("vec"), MODEL))).toBe(1);
  });

  test("1,100 vectors load in two reads (one per 1,000 rows)", async () => {
    const workspace = uniqueWorkspace("vec");
    const saved = vectors(1100, 4, 5);
    expect(await requests(() => store.save(workspace, MODEL, saved))).toBe(11);
    let loaded = new Map<string, Float32Array>();
    expect(await requests(async () => (loaded = await store.load(workspace, MODEL)))).toBe(2);
    expectSame(loaded, saved);
  });

  test("long vectors go in smaller transactions (a transaction's body stays under 4 MiB)", async () => {
    const workspace = uniqueWorkspace("vec");
    const saved = vectors(120, 8192, 6); // 32 KiB each: 76 fit in 2.5 MB of vectors
    expect(await requests(() => store.save(workspace, MODEL, saved))).toBe(2);
    expectSame(await store.load(workspace, MODEL), saved);
  });

  test("a text key that is not 32 hex characters is refused before anything is written", async () => {
    const workspace = uniqueWorkspace("vec");
    await expect(store.save(workspace, MODEL, new Map([["not/a/key", new Float32Array(2)]]))).rejects.toThrow(/is not a text key/);
    expect(await partitionRows(rawTable(), vectorPartition(workspace))).toEqual([]);
  });

  test("emptyVectors deletes every model's vectors of one workspace, and no other's", async () => {
    const [gone, kept] = [uniqueWorkspace("vec"), uniqueWorkspace("vec")];
    await store.save(gone, MODEL, vectors(150, 4, 7));
    await store.save(gone, OTHER_MODEL, vectors(3, 4, 8));
    await store.save(kept, MODEL, vectors(2, 4, 9));
    let deleted = 0;
    // One key-only read, then ceil(153 / 100) transactions, and the read that finds none left.
    expect(await requests(async () => (deleted = await emptyVectors(storage.gateway, gone)))).toBe(1 + 2 + 1);
    expect(deleted).toBe(153);
    expect(await partitionRows(rawTable(), vectorPartition(gone))).toEqual([]);
    expectSame(await store.load(kept, MODEL), vectors(2, 4, 9));
    expect(await emptyVectors(storage.gateway, gone)).toBe(0);
  });
});
