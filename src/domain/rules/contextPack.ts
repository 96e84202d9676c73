/**
 * The context pack (get_context, docs/context.md): ranked candidate items in, a ranked, deduplicated brief out whose
 * estimated tokens never exceed the budget. Pure: the gathering is contextService.ts, the rendering is here so that the
 * estimate and the text it estimates cannot drift apart.
 */

/** Where an item comes from, so an agent can cite or re-read it. */
export type ContextSource =
  | { kind: "entity"; id: string; name: string }
  /** `entity` is the entity's name, as relations name their ends. */
  | { kind: "observation"; entity: string; observation: string }
  | { kind: "relation"; id: string; from: string; relationType: string; to: string }
  | { kind: "event"; id: string; at: string; tool: string };

type ContextKind = ContextSource["kind"];

/** One candidate: its source, its one-line text, how relevant it is (higher first), and what must be packed before it. */
export interface ContextCandidate {
  source: ContextSource;
  /** The item's line of the brief, without markdown decoration (renderBrief adds at most 5 characters: "  - " and a newline). */
  text: string;
  relevance: number;
  /**
   * Dedupe keys (contextKey) of items this one needs packed first: an observation its entity, a relation both ends,
   * because a fact without its subject misleads more than it informs.
   */
  requires?: string[];
}

export interface ContextItem extends ContextCandidate {
  /** Here the rank relevance: the least of the item's own and that of everything it requires. */
  relevance: number;
  /** itemTokens(text). */
  tokens: number;
}

export interface ContextPack {
  items: ContextItem[];
  /** contextTokens(items): the estimate of the whole brief. */
  tokens: number;
  maxTokens: number;
  /** Distinct candidates left out, by kind: over the budget, or needing an item that was left out. */
  omitted: Record<ContextKind, number>;
}

/** The token rule: about four characters of English per token (ceil), plus a fixed overhead per item for its markdown. */
export const CHARS_PER_TOKEN = 4;
const ITEM_OVERHEAD_TOKENS = 2;
/** The brief's fixed frame (title and section headings; see renderBrief), counted once whatever is packed. */
export const FRAME_TOKENS = 40;
/** The estimated tokens of one item's text: ceil(chars / 4) + 2. */
export function itemTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN) + ITEM_OVERHEAD_TOKENS;
}

/** The estimated tokens of a brief of these items: the frame plus each item's estimate. The one rule packing and reporting use. */
export function contextTokens(items: readonly { text: string }[]): number {
  return items.reduce((sum, item) => sum + itemTokens(item.text), FRAME_TOKENS);
}

/** The dedupe key of the entity with this id (what an observation or relation `requires`). */
export function entityKey(id: string): string {
  return `entity:${id}`;
}

/** The identity of an item's subject: the same entity, observation, relation or event found twice is one item. */
export function contextKey(source: ContextSource): string {
  switch (source.kind) {
    case "entity":
      return entityKey(source.id);
    case "observation":
      return `observation:${source.entity}\n${source.observation}`;
    case "relation":
      return `relation:${source.id}`;
    case "event":
      return `event:${source.id}`;
  }
}

/**
 * Packs candidates into maxTokens: deduplicated (the most relevant copy of each key stays), ranked, then taken greedily:
 * an item that does not fit, or whose required items were not taken, is left out, and smaller ones after it may still
 * fit. An item never ranks above what it requires: its rank relevance is the least of its own and theirs (ties put the
 * required item first), and an item requiring a key no candidate has is left out.
 */
export function packContext(candidates: readonly ContextCandidate[], maxTokens: number): ContextPack {
  const best = new Map<string, { candidate: ContextCandidate; order: number }>();
  candidates.forEach((candidate, order) => {
    const key = contextKey(candidate.source);
    const seen = best.get(key);
    if (!seen || candidate.relevance > seen.candidate.relevance) best.set(key, { candidate, order: seen?.order ?? order });
  });
  const ranks = rankAfterRequirements(best);
  const ranked = [...best.entries()].sort(([ka, a], [kb, b]) => {
    const ra = ranks.get(ka)!;
    const rb = ranks.get(kb)!;
    return rb.relevance - ra.relevance || ra.depth - rb.depth || a.order - b.order;
  });
  const omitted: Record<ContextKind, number> = { entity: 0, observation: 0, relation: 0, event: 0 };
  const taken = new Set<string>();
  const items: ContextItem[] = [];
  let tokens = FRAME_TOKENS;
  for (const [key, { candidate }] of ranked) {
    const cost = itemTokens(candidate.text);
    const ready = (candidate.requires ?? []).every((required) => taken.has(required));
    if (!ready || tokens + cost > maxTokens) {
      omitted[candidate.source.kind] += 1;
      continue;
    }
    taken.add(key);
    tokens += cost;
    items.push({ ...candidate, relevance: ranks.get(key)!.relevance, tokens: cost });
  }
  return { items, tokens, maxTokens, omitted };
}

/** Each key's rank relevance (the least along its requirements) and depth (1 + its deepest requirement's); -1 when unmeetable. */
function rankAfterRequirements(
  best: ReadonlyMap<string, { candidate: ContextCandidate }>,
): Map<string, { relevance: number; depth: number }> {
  const ranks = new Map<string, { relevance: number; depth: number }>();
  const visiting = new Set<string>();
  const rank = (key: string): { relevance: number; depth: number } => {
    const known = ranks.get(key);
    if (known) return known;
    const entry = best.get(key);
    // A missing requirement, or a cycle, can never be met: such items sort last and are left out.
    if (!entry || visiting.has(key)) return { relevance: -1, depth: 0 };
    visiting.add(key);
    let relevance = entry.candidate.relevance;
    let depth = 0;
    for (const required of entry.candidate.requires ?? []) {
      const r = rank(required);
      relevance = Math.min(relevance, r.relevance);
      depth = Math.max(depth, r.depth + 1);
    }
    visiting.delete(key);
    const result = { relevance, depth };
    ranks.set(key, result);
    return result;
  };
  for (const key of best.keys()) rank(key);
  return ranks;
}

/**
 * The brief as markdown: a title, then the entities each with its observations, the relations, and the recent changes,
 * each section in rank order. Its length is at most CHARS_PER_TOKEN × contextTokens(items) (the title holds a
 * workspace name of at most 63 characters).
 */
export function renderBrief(workspace: string, items: readonly ContextItem[]): string {
  const entities = items.filter((item) => item.source.kind === "entity");
  const observationsOf = (name: string) =>
    items.filter((item) => item.source.kind === "observation" && item.source.entity === name).map((item) => `  - ${item.text}`);
  const lines = [`# Memory context: ${workspace}`];
  if (entities.length > 0) {
    lines.push("", "## Entities");
    for (const entity of entities) {
      const source = entity.source as Extract<ContextSource, { kind: "entity" }>;
      lines.push(`- ${entity.text}`, ...observationsOf(source.name));
    }
  }
  const section = (title: string, kind: ContextKind) => {
    const shown = items.filter((item) => item.source.kind === kind);
    if (shown.length > 0) lines.push("", `## ${title}`, ...shown.map((item) => `- ${item.text}`));
  };
  section("Relations", "relation");
  section("Recent changes", "event");
  if (items.length === 0) lines.push("", "Nothing fits the budget: raise maxTokens.");
  return lines.join("\n");
}
