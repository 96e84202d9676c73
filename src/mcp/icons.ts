import type { Icon } from "@modelcontextprotocol/server";

import type { Toolset } from "./tool.js";

/**
 * The server's icon and one per toolset, as `data:` URIs: the service serves them itself, with no external URL to fetch,
 * no route to authenticate and no Host to embed, so a listing stays the same for every caller (docs/architecture.md#icons).
 * Each is a small 24×24 SVG outline drawn in a mid-grey that reads on light and dark themes alike.
 */
const GLYPHS: Record<Toolset | "server", string> = {
  // Three linked nodes: the memory as a graph.
  server:
    '<circle cx="6" cy="6" r="3"/><circle cx="18" cy="8" r="3"/><circle cx="10" cy="18" r="3"/><path d="M8.7 7.1l6.4 0.8M7.2 8.7l1.9 6.6M16.6 10.6l-4.9 5.3"/>',
  // A card with lines: entities and their observations.
  core: '<rect x="4" y="3" width="16" height="18" rx="2"/><path d="M8 8h8M8 12h8M8 16h5"/>',
  // Two nodes and an edge: the official memory server's graph tools.
  graph: '<circle cx="6" cy="12" r="3"/><circle cx="18" cy="12" r="3"/><path d="M9 12h6"/>',
  // A tag.
  tags: '<path d="M3 12V4h8l10 10-8 8z"/><circle cx="7.5" cy="7.5" r="1.5"/>',
  // A clock: the change feed.
  history: '<circle cx="12" cy="12" r="9"/><path d="M12 7v5l3 3"/>',
  // A magnifier.
  search: '<circle cx="10.5" cy="10.5" r="6.5"/><path d="M15.5 15.5L21 21"/>',
  // A compass needle: neighbourhoods and paths.
  navigate: '<circle cx="12" cy="12" r="9"/><path d="M15.5 8.5l-2 5-5 2 2-5z"/>',
  // Two shapes merging into one: batches, duplicates and merges.
  curate: '<circle cx="8" cy="9" r="4"/><circle cx="16" cy="9" r="4"/><path d="M12 13v8M9 18l3 3 3-3"/>',
  // A stack of drawers: workspaces.
  admin:
    '<rect x="3" y="4" width="18" height="7" rx="1.5"/><rect x="3" y="13" width="18" height="7" rx="1.5"/><path d="M10 7.5h4M10 16.5h4"/>',
  // A window with a chart: apps shown in the chat.
  apps: '<rect x="3" y="4" width="18" height="16" rx="2"/><path d="M3 8h18M7 16l3-4 3 2 4-5"/>',
};

function iconOf(glyph: string): Icon {
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#6b7280" stroke-width="1.8" ' +
    `stroke-linecap="round" stroke-linejoin="round">${glyph}</svg>`;
  return { src: `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`, mimeType: "image/svg+xml", sizes: ["any"] };
}

/** The server's own icon (its `serverInfo`). */
export const SERVER_ICONS: Icon[] = [iconOf(GLYPHS.server)];

/** Each toolset's icon; a tool shows the icon of the first toolset it names. */
export const TOOLSET_ICONS: Record<Toolset, Icon[]> = Object.fromEntries(
  Object.entries(GLYPHS)
    .filter(([name]) => name !== "server")
    .map(([name, glyph]) => [name, [iconOf(glyph)]]),
) as Record<Toolset, Icon[]>;
