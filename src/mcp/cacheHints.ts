import type { ServerOptions } from "@modelcontextprotocol/server";

/**
 * How long a 2026-07-28 client may keep each cacheable result (docs/architecture.md#cache-hints). The SDK puts these on
 * the wire only for that revision; 2025-era answers carry none.
 *
 * - The listings (tools, resources, templates, prompts) depend only on the route, its toolsets and the caller's access, and change
 *   only with a deploy: an hour, which is how long a deploy may take to reach every client. Private, because what a
 *   caller is shown depends on its grants (a read-only caller sees no write tools).
 * - `server/discover` depends on the route and its toolsets alone (not on the caller): an hour, and shared caches may keep it.
 * - A resource read is a workspace's graph, which any write changes, and which only callers granted that workspace may
 *   see: valid at the moment it was read (0) and private.
 */
const LISTING_TTL_MS = 60 * 60 * 1000;

export const CACHE_HINTS: NonNullable<ServerOptions["cacheHints"]> = {
  "tools/list": { ttlMs: LISTING_TTL_MS, cacheScope: "private" },
  "resources/list": { ttlMs: LISTING_TTL_MS, cacheScope: "private" },
  "resources/templates/list": { ttlMs: LISTING_TTL_MS, cacheScope: "private" },
  "prompts/list": { ttlMs: LISTING_TTL_MS, cacheScope: "private" },
  "server/discover": { ttlMs: LISTING_TTL_MS, cacheScope: "public" },
  "resources/read": { ttlMs: 0, cacheScope: "private" },
};
