import { describe, expect, test } from "@jest/globals";

import { normalizedText, normalizeTerm, searchTerm, searchTermsOf, termsOf } from "../../src/search/text.js";

/** How text becomes search terms: the exact-name rule's normalisation, and words-first search's stemmed terms. */
describe("normalisation (the exact-name rule)", () => {
  test("lower-cases and strips accents, and keeps every word, stop words and plurals included", () => {
    expect(normalizeTerm("Zoë")).toBe("zoe");
    expect(termsOf("The Invoices of Zoë")).toEqual(["the", "invoices", "of", "zoe"]);
    expect(normalizedText("  Café—Crème  ")).toBe("cafe creme");
  });
});

describe("search terms (words first)", () => {
  test("inflections of a word are one term", () => {
    expect(searchTerm("invoices")).toBe(searchTerm("invoice"));
    expect(searchTerm("Deployments")).toBe(searchTerm("deployed"));
    expect(searchTerm("running")).toBe(searchTerm("runs"));
    expect(searchTerm("payments")).not.toBe(searchTerm("pays")); // a stemmer, not a thesaurus
  });

  test("stop words are dropped", () => {
    expect(searchTerm("the")).toBeNull();
    expect(searchTerm("THE")).toBeNull();
    expect(searchTermsOf("The invoices of the customer are in the queue")).toEqual(
      ["invoices", "customer", "queue"].map((word) => searchTerm(word)),
    );
  });

  test("words that carry meaning in technical notes are kept", () => {
    for (const word of ["not", "no", "down", "up", "off"]) expect(searchTerm(word)).not.toBeNull();
  });

  test("accents are stripped before stemming, as before", () => {
    expect(searchTerm("Zoë")).toBe(searchTerm("zoe"));
    expect(searchTermsOf("Café crèmes")).toEqual(searchTermsOf("cafe CREME"));
  });

  test("punctuation splits words, and nothing empty comes out", () => {
    expect(searchTermsOf("payment-service: retries, timeouts!")).toEqual(
      ["payment", "service", "retries", "timeouts"].map((word) => searchTerm(word)),
    );
    expect(searchTermsOf("  ...  ")).toEqual([]);
  });
});
