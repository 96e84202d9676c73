import { describe, expect, test } from "@jest/globals";
import { mintSession, sessionKeyFrom, verifySession, type ViewSession } from "../../src/http/viewerSession.js";

/** The viewer's session token, without storage or HTTP: what it binds, and what it refuses. */
const cursorKey = new Uint8Array(32).fill(7);
const key = sessionKeyFrom(cursorKey);
const NOW = 1_800_000_000;
const session: ViewSession = { workspace: "team-a", principalId: "key:alice", kind: "key", access: "read", expires: NOW + 900 };

describe("the viewer session token", () => {
  test("round-trips the workspace, principal, access and expiry", () => {
    expect(verifySession(key, mintSession(key, session), "team-a", NOW)).toEqual(session);
  });

  test("is refused on another workspace, once expired, and under another key", () => {
    const token = mintSession(key, session);
    expect(verifySession(key, token, "team-b", NOW)).toBeUndefined();
    expect(verifySession(key, token, "team-a", NOW + 900)).toBeUndefined();
    expect(verifySession(sessionKeyFrom(new Uint8Array(32).fill(8)), token, "team-a", NOW)).toBeUndefined();
  });

  test("is signed with a key derived from the cursor key, never the cursor key itself", () => {
    expect(Buffer.from(key).equals(Buffer.from(cursorKey))).toBe(false);
    expect(verifySession(cursorKey, mintSession(key, session), "team-a", NOW)).toBeUndefined();
  });

  test("a payload changed after signing is refused, even with a well-formed signature", () => {
    const [, signature] = mintSession(key, session).split(".");
    const forged = Buffer.from(JSON.stringify({ ws: "team-a", sub: "key:admin", kind: "key", acc: "write", exp: NOW + 900 })).toString(
      "base64url",
    );
    expect(verifySession(key, `${forged}.${signature}`, "team-a", NOW)).toBeUndefined();
  });

  test("garbage is refused without throwing", () => {
    for (const token of ["", ".", "a.b", "a.b.c", "%%%.%%%", `${Buffer.from("not json").toString("base64url")}.x`]) {
      expect(verifySession(key, token, "team-a", NOW)).toBeUndefined();
    }
  });
});
