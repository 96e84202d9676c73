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
