/**
 * Entity-type colours (docs/viewer.md#colours). Pure: no DOM, so it is unit-tested (test/unit/viewerPalette.test.ts).
 *
 * The most frequent types get hues that are clearly different from each other (a hand-picked categorical set, checked for
 * distance in the test); a hash of the name gave three near-identical blues. A type keeps its colour while the page runs:
 * types are ranked once, when the graph opens, and a type met later takes the next free colour.
 */

/** Twelve categorical colours, ordered so that the first few are the most different from each other. */
export const CATEGORICAL = [
  "#2f6fd6", // blue
  "#e8772e", // orange
  "#2e9e4f", // green
  "#d23f3f", // red
  "#8e5cc8", // purple
  "#17a5b5", // teal
  "#c9a21a", // mustard
  "#e062a8", // pink
  "#7a5230", // brown
  "#5c6675", // slate
  "#8fc23a", // lime
  "#1b3a78", // navy
] as const;

/** Beyond the categorical set: a hashed hue, paler, so it is not mistaken for one of the frequent types. */
export function hashedColour(entityType: string): string {
  let hash = 0;
  for (let i = 0; i < entityType.length; i++) hash = (hash * 31 + entityType.charCodeAt(i)) | 0;
  return `hsl(${Math.abs(hash) % 360}, 30%, 62%)`;
}

export class Palette {
  private readonly colours = new Map<string, string>();

  /** Ranks the types by how many entities have them (then by name, so one workspace always gets the same colours). */
  constructor(counts: Iterable<[string, number]> = []) {
    const ranked = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    for (const [type] of ranked) this.colour(type);
  }

  colour(entityType: string): string {
    let colour = this.colours.get(entityType);
    if (colour === undefined) {
      colour = CATEGORICAL[this.colours.size] ?? hashedColour(entityType);
      this.colours.set(entityType, colour);
    }
    return colour;
  }
}

/** Counts the entities of each type. */
export function typeCounts(entities: Iterable<{ entityType: string }>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const entity of entities) counts.set(entity.entityType, (counts.get(entity.entityType) ?? 0) + 1);
  return counts;
}
