/**
 * Distractor entities for the latency sizes of `npm run bench:recall`: realistic text from domains the corpus never touches
 * (a cooking club, a reading group, a garden, walks, records, films, birds), so they compete for rank without being right
 * answers. Deterministic: a seeded generator, the same N entities on every run.
 */
import type { CorpusEntity, CorpusRelation } from "./corpus.js";

/** mulberry32: a small seeded PRNG, enough for repeatable text. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = {
  ingredient: ["lentils", "fennel", "saffron", "chickpeas", "barley", "walnuts", "leeks", "quince", "sorrel", "plums", "tahini", "capers"],
  dish: ["stew", "tart", "risotto", "salad", "soup", "pie", "curry", "gratin", "pilaf", "crumble"],
  author: ["M. Ashdown", "R. Calloway", "T. Ingleby", "P. Varga", "L. Moreau", "S. Okonjo", "H. Brandt", "E. Quill"],
  place: ["the Dales", "Cornwall", "Snowdonia", "the Fens", "Galway", "the Cotswolds", "Skye", "Northumberland"],
  theme: ["a lighthouse keeper", "two sisters", "a travelling circus", "an old orchard", "a river crossing", "a lost violin"],
  plant: ["foxglove", "lavender", "hellebore", "clematis", "sweet pea", "dahlia", "primrose", "honeysuckle"],
  soil: ["chalky", "sandy", "clay", "peaty", "loamy"],
  month: ["March", "April", "May", "June", "July", "August", "September"],
  terrain: ["moorland", "beech woods", "sea cliffs", "river meadows", "limestone pavement", "heather hills"],
  bird: ["redstart", "curlew", "nuthatch", "kestrel", "dipper", "lapwing", "siskin", "wren"],
  colour: ["russet", "slate grey", "olive", "chestnut", "pale blue", "speckled"],
  genre: ["folk", "jazz", "baroque", "bluegrass", "ambient", "choral"],
};

type Pick = <K extends keyof typeof WORDS>(key: K) => string;

const KINDS: { entityType: string; name: (pick: Pick, i: number) => string; observations: (pick: Pick, n: () => number) => string[] }[] = [
  {
    entityType: "recipe",
    name: (pick, i) => `${pick("ingredient")} ${pick("dish")} no. ${i}`,
    observations: (pick, n) => [
      `Needs ${n() * 50} grams of ${pick("ingredient")} and a handful of ${pick("ingredient")}.`,
      `Bake or simmer for ${n() * 10} minutes.`,
    ],
  },
  {
    entityType: "book",
    name: (pick, i) => `The ${pick("plant")} letters, vol. ${i}`,
    observations: (pick, n) => [
      `Novel by ${pick("author")} about ${pick("theme")}.`,
      `Set in ${pick("place")}; ${n() * 40} pages.`,
      `Read by the club in ${pick("month")}.`,
    ],
  },
  {
    entityType: "plant",
    name: (pick, i) => `${pick("plant")} bed ${i}`,
    observations: (pick) => [`Flowers in ${pick("month")}; prefers ${pick("soil")} soil.`, `Planted beside the ${pick("plant")}.`],
  },
  {
    entityType: "walk",
    name: (pick, i) => `${pick("terrain")} loop ${i}`,
    observations: (pick, n) => [
      `A ${n() + 3} mile circuit through ${pick("terrain")} in ${pick("place")}.`,
      `Muddy after rain; a ${pick("bird")} nests by the stile.`,
    ],
  },
  {
    entityType: "album",
    name: (pick, i) => `${pick("genre")} sessions ${i}`,
    observations: (pick, n) => [`Recorded in ${pick("place")} with ${n() + 6} songs.`, `Sleeve painted by ${pick("author")}.`],
  },
  {
    entityType: "bird sighting",
    name: (pick, i) => `${pick("bird")} sighting ${i}`,
    observations: (pick, n) => [
      `A ${pick("colour")} ${pick("bird")} seen in ${pick("terrain")} at dawn.`,
      `${n() + 1} birds in the flock.`,
    ],
  },
];

/** `count` distractor entities (names unique, never a corpus name) and a relation from each to an earlier one. */
export function distractors(count: number, seed = 24): { entities: CorpusEntity[]; relations: CorpusRelation[] } {
  const random = seeded(seed);
  const pick: Pick = (key) => WORDS[key][Math.floor(random() * WORDS[key].length)]!;
  const n = () => 1 + Math.floor(random() * 9);
  const entities: CorpusEntity[] = [];
  const relations: CorpusRelation[] = [];
  for (let i = 0; i < count; i++) {
    const kind = KINDS[i % KINDS.length]!;
    const name = kind.name(pick, i);
    entities.push({ name: name[0]!.toUpperCase() + name.slice(1), entityType: kind.entityType, observations: kind.observations(pick, n) });
    if (i > 0) relations.push({ from: entities[i]!.name, to: entities[Math.floor(random() * i)]!.name, relationType: "reminds_of" });
  }
  return { entities, relations };
}
