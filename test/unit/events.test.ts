import { describe, expect, test } from "@jest/globals";

import type { Change } from "../../src/domain/feed/history.js";
import { eventAction, toChangeEvent } from "../../src/storage/rows/events.js";
import { eventKeyTime } from "../../src/storage/rows/keys.js";
import type { StoredRow } from "../../src/storage/rows/rows.js";
import { stampOf } from "../../src/storage/rows/rowWrites.js";

/** Event rows as pure data: the changes survive the split over string properties, and the key sorts by time. */
describe("event rows", () => {
  const stamp = stampOf({ principal: "key:alice", tool: "add_observations" }, Date.now);
  const entityId = "2b5d7cec-4e60-55e2-9bcd-75ae9b5b532c";

  // Each emoji is two UTF-16 units: with one of these two offsets a pair straddles the 30,000-unit boundaries.
  test.each([0, 1])(
    "changes longer than one string property are split without breaking a surrogate pair (offset %i), and read back whole",
    (offset) => {
      const content = "x".repeat(offset) + "😀".repeat(40_000);
      const changes: Change[] = [{ kind: "observation.created", entityId, entityName: "A", observationId: "o", content }];
      const before = Date.now();
      const [, row] = eventAction("ws", stamp, changes) as [string, Record<string, unknown> & { rowKey: string }];
      const chunks = Object.keys(row).filter((key) => /^c\d+$/.test(key));
      expect(chunks.length).toBe(row.chunks);
      expect(chunks.length).toBeGreaterThan(2);
      for (const key of chunks) {
        expect((row[key] as string).length).toBeLessThanOrEqual(30_000);
        expect((row[key] as string).isWellFormed()).toBe(true);
      }
      const event = toChangeEvent(row as unknown as StoredRow);
      expect(event.changes).toEqual(changes);
      expect({ principal: event.principal, tool: event.tool, call: event.call }).toEqual({
        principal: "key:alice",
        tool: "add_observations",
        call: stamp.call,
      });
      expect(eventKeyTime(row.rowKey)).toBeGreaterThanOrEqual(before);
      expect(row[`e${entityId.replace(/-/g, "")}`]).toBe(true);
    },
  );
});
