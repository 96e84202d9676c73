/**
 * The check behind the corpus' paraphrase property: which content words two texts share. A content word is a term that is
 * not an English stop word, compared after a deliberately greedy stemming (suffixes cut and a shared prefix of 4+ letters
 * counted as the same word), so the check errs towards finding a shared word: a paraphrase query that passes it shares no
 * word with its answers under any ordinary English stemmer either.
 */
import { termsOf } from "../../src/search/text.js";

/** Function words only: what every English stop list has. A word missing here counts as content, which is the strict side. */
const STOP_WORDS = new Set(
  (
    "a an the and or but if of at by for with about between into through during before after above below to from " +
    "in on under then once here there when where why how all any both each few more most other some " +
    "such nor only own same so than too very s t can will just should i me my myself we our ours ourselves you " +
    "your yours he him his she her hers it its they them their theirs what which who whom this that these those am is are " +
    "was were be been being have has had having do does did doing as until while because"
  ).split(" "),
);

const SUFFIXES = [
  "ations",
  "ation",
  "ingly",
  "ments",
  "ment",
  "ness",
  "ings",
  "ing",
  "ions",
  "ion",
  "ers",
  "er",
  "est",
  "edly",
  "ed",
  "ities",
  "ity",
  "ly",
  "ies",
  "es",
  "s",
];

/** A greedy stem: the longest listed suffix cut (keeping at least 3 letters), then a final e or a doubled letter dropped. */
function greedyStem(term: string): string {
  let word = term;
  for (const suffix of SUFFIXES) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) {
      word = word.slice(0, -suffix.length);
      break;
    }
  }
  if (word.endsWith("e") && word.length > 3) word = word.slice(0, -1);
  if (word.endsWith("y") && word.length > 3) word = `${word.slice(0, -1)}i`;
  if (word.length > 3 && word.at(-1) === word.at(-2) && !"aeiou".includes(word.at(-1)!)) word = word.slice(0, -1);
  return word;
}

/** The stems of a text's content words. */
export function contentStems(text: string): Set<string> {
  return new Set(
    termsOf(text)
      .filter((term) => !STOP_WORDS.has(term))
      .map(greedyStem),
  );
}

/** Whether two stems count as one word: equal, or the shorter (4+ letters) begins the longer. */
function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 4 && long.startsWith(short);
}

/** The query's content stems that the text shares (empty when none). */
export function sharedContentWords(query: string, text: string): string[] {
  const theirs = [...contentStems(text)];
  return [...contentStems(query)].filter((stem) => theirs.some((other) => sameWord(stem, other)));
}
