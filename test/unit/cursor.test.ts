import { randomBytes } from "node:crypto";

import { describe, expect, test } from "@jest/globals";

import { CursorCodec } from "../../src/domain/model/cursor.js";
import { ValidationError } from "../../src/domain/model/errors.js";

/** read_graph's cursors as pure rules: signed, bound to their workspace and mode, refused when forged. No storage. */
const AFTER = "0f8fad5b-d9cb-469f-a165-70867728950e";
const scope = { workspace: "team-a", mode: "full" as const };

function codecWithKey(key = randomBytes(32)) {
  let reads = 0;
  const codec = new CursorCodec(async () => {
    reads += 1;
    return key;
  });
  return { codec, reads: () => reads };
}

async function refusal(work: Promise<unknown>): Promise<ValidationError> {
  const error = await work.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(ValidationError);
  expect((error as Error).message).toMatch(/Omit cursor to start again from the first page/);
  return error as ValidationError;
}

describe("read_graph cursors", () => {
  test("a cursor decodes, in its own workspace and mode, to the position it was issued for", async () => {
    const { codec } = codecWithKey();
    const cursor = await codec.encode(scope, AFTER);
    expect(await codec.decode(scope, cursor)).toBe(AFTER);
    // Opaque: the position is in it, but neither the workspace nor the key.
    expect(cursor).not.toContain("team-a");
  });

  test("another key (another deployment) verifies by the same rule: same key, same answer; different key, refused", async () => {
    const key = randomBytes(32);
    const cursor = await codecWithKey(key).codec.encode(scope, AFTER);
    expect(await codecWithKey(Buffer.from(key)).codec.decode(scope, cursor)).toBe(AFTER);
    await refusal(codecWithKey().codec.decode(scope, cursor));
  });

  test.each([
    ["another workspace", { workspace: "team-b", mode: "full" as const }],
    ["another mode", { workspace: "team-a", mode: "names" as const }],
  ])("a cursor used with %s is refused", async (_label, other) => {
    const { codec } = codecWithKey();
    await refusal(codec.decode(other, await codec.encode(scope, AFTER)));
  });

  test("a cursor whose position or signature was altered is refused", async () => {
    const { codec } = codecWithKey();
    const cursor = await codec.encode(scope, AFTER);
    const [payload, mac] = cursor.split(".") as [string, string];
    const moved = Buffer.from(JSON.stringify({ v: 2, after: "ffffffff-ffff-ffff-ffff-ffffffffffff" })).toString("base64url");
    // The first character: the last one of a 32-byte MAC carries two unused bits, so changing it may not change the MAC.
    const flipped = (mac.startsWith("A") ? "B" : "A") + mac.slice(1);
    for (const forged of [`${moved}.${mac}`, `${payload}.${flipped}`, `${payload}.`, `${payload}.${mac}${mac}`, payload]) {
      await refusal(codec.decode(scope, forged));
    }
  });

  test("hand-made and malformed cursors are refused before the key is even read", async () => {
    const { codec, reads } = codecWithKey();
    const handMade = [
      "garbage",
      "",
      Buffer.from(JSON.stringify({ v: 1, after: AFTER })).toString("base64url"),
      `${Buffer.from(JSON.stringify({ v: 2, after: "not-a-guid" })).toString("base64url")}.${"A".repeat(43)}`,
      `${Buffer.from("[]").toString("base64url")}.${"A".repeat(43)}`,
      "a.b.c",
    ];
    for (const cursor of handMade) await refusal(codec.decode(scope, cursor));
    expect(reads()).toBe(0);
  });
});
