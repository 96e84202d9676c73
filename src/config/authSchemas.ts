import { z } from "zod";

import { type Access, isWorkspacePattern } from "../domain/model/access.js";

/** The shapes of the JSON auth settings; the keys CLI checks the entries it prints against them too. */
export interface ApiKeyEntry {
  id: string;
  /** Lower-case hex SHA-256 of the key. The key itself is never stored. */
  sha256: string;
  workspaces: string[];
  access: Access;
}

/** Exactly one of role, group, oid: matched against the token's `roles`, `groups` and `oid` claims. */
export interface EntraGrant {
  role?: string;
  group?: string;
  oid?: string;
  workspaces: string[];
  access: Access;
}

const workspacePattern = z
  .string()
  .refine(isWorkspacePattern, { message: "must be a workspace name, a prefix ending in '*' (e.g. team-*), or '*'" });
const grantFields = {
  workspaces: z.array(workspacePattern).min(1, { message: "must list at least one workspace or pattern" }),
  access: z.enum(["read", "write"]),
};

/** The MEMORY_API_KEYS schema. */
export const apiKeyEntries = z
  .array(
    z.strictObject({
      id: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, { message: "must be 1-64 letters, digits, '.', '_' or '-'" }),
      sha256: z
        .string()
        .regex(/^[0-9a-fA-F]{64}$/, { message: "must be the 64-hex-digit SHA-256 of the key (`central-memory keys create` prints it)" })
        .transform((hex) => hex.toLowerCase()),
      ...grantFields,
    }),
  )
  .min(1, { message: "lists no keys" })
  .superRefine((entries, ctx) => {
    const ids = new Set<string>();
    const hashes = new Set<string>();
    entries.forEach((entry, index) => {
      if (ids.has(entry.id))
        ctx.addIssue({ code: "custom", path: [index, "id"], message: `'${entry.id}' is used twice; key ids must be unique` });
      if (hashes.has(entry.sha256))
        ctx.addIssue({ code: "custom", path: [index, "sha256"], message: "is used twice; each key needs its own" });
      ids.add(entry.id);
      hashes.add(entry.sha256);
    });
  });

/** The MEMORY_ENTRA_GRANTS schema. */
export const entraGrantList = z
  .array(
    z
      .strictObject({
        role: z.string().min(1).optional(),
        group: z.string().min(1).optional(),
        oid: z.string().min(1).optional(),
        ...grantFields,
      })
      .refine((grant) => [grant.role, grant.group, grant.oid].filter((value) => value !== undefined).length === 1, {
        message: "give exactly one of role, group or oid",
      }),
  )
  .min(1, { message: "lists no grants" });
