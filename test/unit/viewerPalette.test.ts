import { describe, expect, test } from "@jest/globals";

import { CATEGORICAL, hashedColour, Palette, typeCounts } from "../../src/viewer/palette.js";

/** The viewer's entity-type colours (src/viewer/palette.ts): clearly different for the frequent types, stable per workspace. */

/** CIE L*a*b* of an sRGB hex colour (D65), for a perceptual distance. */
function lab(hex: string): [number, number, number] {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const [r, g, b] = [channel(0), channel(1), channel(2)];
  const xyz = [
    (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047,
    0.2126 * r + 0.7152 * g + 0.0722 * b,
    (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883,
  ].map((t) => (t > 216 / 24389 ? Math.cbrt(t) : (841 / 108) * t + 4 / 29));
  return [116 * xyz[1]! - 16, 500 * (xyz[0]! - xyz[1]!), 200 * (xyz[1]! - xyz[2]!)];
}
const distance = (a: string, b: string) => Math.hypot(...lab(a).map((v, i) => v - lab(b)[i]!));

describe("the entity-type palette", () => {
  test("its colours are clearly different from each other (CIE76 distance of 25 or more between any two)", () => {
    expect(new Set(CATEGORICAL).size).toBe(CATEGORICAL.length);
    let closest = Infinity;
    for (const [i, a] of CATEGORICAL.entries()) for (const b of CATEGORICAL.slice(i + 1)) closest = Math.min(closest, distance(a, b));
    expect(closest).toBeGreaterThanOrEqual(25);
  });

  test("the three blues the hash gave (service, database, decision) now differ", () => {
    const palette = new Palette([
      ["service", 5],
      ["database", 3],
      ["decision", 2],
    ]);
    const colours = ["service", "database", "decision"].map((type) => palette.colour(type));
    expect(new Set(colours).size).toBe(3);
    expect(distance(colours[0]!, colours[1]!)).toBeGreaterThanOrEqual(25);
    expect(distance(colours[1]!, colours[2]!)).toBeGreaterThanOrEqual(25);
  });

  test("the most frequent types get the first colours, ties by name, whatever order they come in", () => {
    const counts = typeCounts([{ entityType: "b" }, { entityType: "a" }, { entityType: "c" }, { entityType: "c" }]);
    const one = new Palette(counts);
    const other = new Palette([...counts].reverse());
    expect(["c", "a", "b"].map((type) => one.colour(type))).toEqual(CATEGORICAL.slice(0, 3));
    expect(["a", "b", "c"].map((type) => other.colour(type))).toEqual(["a", "b", "c"].map((type) => one.colour(type)));
  });

  test("a type met later takes the next free colour and keeps it; past the set, a paler hashed hue", () => {
    const palette = new Palette([["person", 1]]);
    expect(palette.colour("team")).toBe(CATEGORICAL[1]);
    expect(palette.colour("team")).toBe(CATEGORICAL[1]);
    for (let i = 0; i < CATEGORICAL.length; i++) palette.colour(`type ${i}`);
    expect(palette.colour("late")).toBe(hashedColour("late"));
    expect(hashedColour("late")).toMatch(/^hsl\(\d+, 30%, 62%\)$/);
  });
});
