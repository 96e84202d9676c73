import { stem } from "porter2";

/**
 * How text becomes search terms: split on spaces and punctuation, then lower-cased with accents
 * stripped (NFD, then the combining marks dropped), so "Zoë", "zoe" and "ZOE" are one term.
 */
const SPLIT = /[\n\r\p{Z}\p{P}\p{S}]+/u;
const MARKS = /\p{M}+/gu;

export function normalizeTerm(term: string): string {
  return term.normalize("NFD").replace(MARKS, "").toLowerCase();
}

export function tokenize(text: string): string[] {
  return text.split(SPLIT).filter((token) => token.length > 0);
}

/** The terms of a text, normalised. */
export function termsOf(text: string): string[] {
  return tokenize(text).map(normalizeTerm);
}

/** A whole text normalised for an exact comparison: its terms joined by one space. */
export function normalizedText(text: string): string {
  return termsOf(text).join(" ");
}

/**
 * English words too common to tell one entity from another (the classic van Rijsbergen / Snowball list, trimmed of words
 * that carry meaning in technical notes, such as "up", "down", "off", "over", "again", "no" and "not"). A short list in
 * code: the `stopword` package carries 62 languages (1.6 MB) for these ~120 words.
 */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after all am an and any are as at be because been before being below between both but by can could " +
    "did do does doing during each few for from further had has have having he her here hers herself him himself his how " +
    "i if in into is it its itself just me more most my myself nor of on once only or other our ours ourselves own same " +
    "she should so some such than that the their theirs them themselves then there these they this those through to too " +
    "under until very was we were what when where which while who whom why will with would you your yours yourself " +
    "yourselves s t d ll m re ve"
  ).split(" "),
);

/**
 * A term as the words-first search matches it: normalised, then null for a stop word, else its Porter2 stem, so
 * "Invoices", "invoice" and "invoicing" are one term. Porter2 (the `porter2` package) is the English Snowball stemmer.
 *
 * @example
 * searchTerm("Invoices") // "invoic"
 * searchTerm("The") // null
 */
export function searchTerm(term: string): string | null {
  const normalized = normalizeTerm(term);
  return normalized.length === 0 || STOP_WORDS.has(normalized) ? null : stem(normalized);
}

/**
 * The search terms of a text, in order, stop words dropped.
 *
 * @example
 * searchTermsOf("Payments for the invoices") // ["payment", "invoic"]
 */
export function searchTermsOf(text: string): string[] {
  const terms: string[] = [];
  for (const token of tokenize(text)) {
    const term = searchTerm(token);
    if (term !== null) terms.push(term);
  }
  return terms;
}

/**
 * The terms the words ranker indexes and looks up for one word: its stem (searchTerm), and the word itself when stemming
 * changed it. The stem matches every inflection ("invoices" finds "invoice"); the word as written keeps typo tolerance and
 * prefixes working on whole words ("reconciliaton" is one edit from "reconciliation", four from its stem "reconcili"), and
 * scores an exact form above an inflection. The stem comes first, so the word as written is the last term of a query
 * (the one matched as a prefix). Null for a stop word.
 *
 * @example
 * searchForms("Invoices") // ["invoic", "invoices"]
 * searchForms("tea") // ["tea"]
 */
export function searchForms(term: string): string[] | null {
  const normalized = normalizeTerm(term);
  if (normalized.length === 0 || STOP_WORDS.has(normalized)) return null;
  const stemmed = stem(normalized);
  return stemmed === normalized ? [stemmed] : [stemmed, normalized];
}
