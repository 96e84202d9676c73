import { randomBytes } from "node:crypto";

import type { CursorKeyProvider } from "../domain/model/cursor.js";
import { StorageError } from "../domain/model/errors.js";
import type { StorageConnection } from "./table/client.js";
import { classifyStorageError, toMemoryError } from "./table/storageErrors.js";

/**
 * The key that signs read_graph cursors, kept in the memory table itself, so every instance of a
 * deployment shares it with no configuration and clients never see it. Its row is outside every
 * workspace: no workspace name can start with "~", so no workspace query or scan ever reaches it.
 */
export const CURSOR_KEY_PARTITION = "~system";
const CURSOR_KEY_ROW = "cursor-key";
const KEY_BYTES = 32;

/**
 * Reads the key once per process (one point read) and caches it. The first instance of a deployment
 * finds no row and creates one; instances racing to do so settle on the row that won (create fails
 * with 409, and the winner's row is read). A failure is not cached, so the next call tries again.
 */
export function tableCursorKey(storage: StorageConnection): CursorKeyProvider {
  let loading: Promise<Uint8Array> | undefined;
  return () =>
    (loading ??= loadOrCreate(storage).catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}

async function loadOrCreate(storage: StorageConnection): Promise<Uint8Array> {
  const stored = await readKey(storage);
  if (stored) return stored;
  const key = randomBytes(KEY_BYTES);
  try {
    await storage.gateway.createRow({ partitionKey: CURSOR_KEY_PARTITION, rowKey: CURSOR_KEY_ROW, key: key.toString("base64") });
    return key;
  } catch (error) {
    if (classifyStorageError(error) !== "entity-exists") throw toMemoryError(error);
  }
  const winner = await readKey(storage);
  if (!winner) throw new StorageError("The cursor key row vanished while it was being created. The call may be retried.");
  return winner;
}

async function readKey(storage: StorageConnection): Promise<Uint8Array | undefined> {
  const row = await storage.gateway.pointRead(CURSOR_KEY_PARTITION, CURSOR_KEY_ROW);
  if (!row) return undefined;
  const key = typeof row.key === "string" ? Buffer.from(row.key, "base64") : undefined;
  // A row someone edited by hand is not trusted to sign anything.
  if (!key || key.length !== KEY_BYTES) {
    throw new StorageError(
      `The cursor key row (${CURSOR_KEY_PARTITION}/${CURSOR_KEY_ROW}) is damaged. Delete it; a new key is created on the next call.`,
    );
  }
  return key;
}
