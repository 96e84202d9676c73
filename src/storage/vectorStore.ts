import type { TransactionAction } from "@azure/data-tables";

import { forEachLimited } from "../domain/model/concurrency.js";
import { LIMITS } from "../domain/model/limits.js";
import type { VectorStore } from "../domain/ports/embedder.js";
import { modelVectors, vectorKey, vectorPartition } from "./rows/keys.js";
import { text } from "./rows/rows.js";
import { CONCURRENCY, rangeFilter, type TableGateway } from "./table/gateway.js";
import { toMemoryError } from "./table/storageErrors.js";

/**
 * A remote model's vectors in rows of their own (rows/keys.ts, vectorPartition): one row per text and model, the vector as
 * Edm.Binary (Float32, little-endian: 4 bytes a dimension, so 1,536 dimensions are 6 KB a row). Rows are upserted without
 * conditions: a row is a function of its key (the model and the text), so two writers of one row write the same bytes.
 */
export class TableVectorStore implements VectorStore {
  constructor(private readonly gateway: TableGateway) {}

  async load(workspace: string, model: string): Promise<Map<string, Float32Array>> {
    const vectors = new Map<string, Float32Array>();
    const filter = rangeFilter(vectorPartition(workspace), modelVectors(model));
    for await (const page of this.gateway.pages(filter, ["RowKey", "vector"])) {
      for (const row of page) {
        const key = text(row.rowKey);
        const bytes = row.vector;
        if (!(bytes instanceof Uint8Array) || bytes.byteLength % 4 !== 0) continue; // not a vector row we wrote: skip, never fail a search
        vectors.set(key.slice(key.lastIndexOf("~") + 1), decode(bytes));
      }
    }
    return vectors;
  }

  async save(workspace: string, model: string, vectors: ReadonlyMap<string, Float32Array>): Promise<void> {
    const partitionKey = vectorPartition(workspace);
    const rows = [...vectors].map(([textKey, vector]) => ({
      partitionKey,
      rowKey: vectorKey(model, textKey),
      kind: "vector",
      model,
      vector: encode(vector),
    }));
    await forEachLimited(transactions(rows), CONCURRENCY, async (chunk) => {
      const actions: TransactionAction[] = chunk.map((row) => ["upsert", row, "Replace"]);
      try {
        await this.gateway.transact(actions);
      } catch (error) {
        throw toMemoryError(error);
      }
    });
  }
}

/**
 * A transaction's body may not pass 4 MiB; its vectors travel in base64 (4/3 of their bytes). At 1,536 dimensions 100 rows are
 * about 0.8 MB; only vectors longer than about 7,000 dimensions make a transaction of fewer rows.
 */
const TRANSACTION_VECTOR_BYTES = 2_500_000;

function transactions<Row extends { vector: Uint8Array }>(rows: readonly Row[]): Row[][] {
  const chunks: Row[][] = [];
  let current: Row[] = [];
  let bytes = 0;
  for (const row of rows) {
    if (current.length >= LIMITS.batchOperations || (current.length > 0 && bytes + row.vector.byteLength > TRANSACTION_VECTOR_BYTES)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(row);
    bytes += row.vector.byteLength;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

function encode(vector: Float32Array): Uint8Array {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  vector.forEach((value, i) => view.setFloat32(i * 4, value, true));
  return bytes;
}

function decode(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < vector.length; i++) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}
