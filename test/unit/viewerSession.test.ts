import { describe, expect, test } from "@jest/globals";

import { credentialFingerprint, mintSession, sessionKeyFrom, verifySession, type ViewSession } from "../../src/http/viewerSession.js";

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

  test("a signature spelled differently is refused, even where it decodes to the same bytes", () => {
    const token = mintSession(key, session);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    // 32 bytes are 43 characters: the last one carries 4 bits and 2 spare ones, which decoding drops.
    const last = alphabet.indexOf(token.at(-1)!);
    const respelled = token.slice(0, -1) + alphabet[last ^ 1];
    expect(Buffer.from(respelled.split(".")[1]!, "base64url").equals(Buffer.from(token.split(".")[1]!, "base64url"))).toBe(true);
    expect(verifySession(key, respelled, "team-a", NOW)).toBeUndefined();
  });

  test("a payload changed after signing is refused, even with a well-formed signature", () => {
    const [, signature] = mintSession(key, session).split(".");
    const forged = Buffer.from(JSON.stringify({ ws: "team-a", sub: "key:admin", kind: "key", acc: "write", exp: NOW + 900 })).toString(
      "base64url",
    );
    expect(verifySession(key, `${forged}.${signature}`, "team-a", NOW)).toBeUndefined();
  });

  test("carries a keyed fingerprint of the key's secret, which differs per secret and reveals no digest", () => {
    const digest = "ab".repeat(32);
    const credential = credentialFingerprint(key, digest);
    expect(verifySession(key, mintSession(key, { ...session, credential }), "team-a", NOW)?.credential).toBe(credential);
    expect(credentialFingerprint(key, "cd".repeat(32))).not.toBe(credential);
    expect(credentialFingerprint(sessionKeyFrom(new Uint8Array(32).fill(8)), digest)).not.toBe(credential);
    expect(mintSession(key, { ...session, credential })).not.toContain(digest);
  });

  test("garbage is refused without throwing", () => {
    for (const token of ["", ".", "a.b", "a.b.c", "%%%.%%%", `${Buffer.from("not json").toString("base64url")}.x`]) {
      expect(verifySession(key, token, "team-a", NOW)).toBeUndefined();
    }
  });
});
