import { describe, expect, test } from "@jest/globals";

import { ValidationError } from "../../src/domain/model/errors.js";
import { checkEntityNameLookup, checkRelationLookup, normalizeMetadata } from "../../src/domain/model/validation.js";

/** The domain's validation rules as pure functions (no storage): the one place each limit is enforced. */
describe("metadata", () => {
  test.each([
    ['{"__proto__":{"x":1}}', "metadata.__proto__"],
    ['{"a":{"b":{"__proto__":null}}}', "metadata.a.b.__proto__"],
    ['{"list":[1,{"__proto__":{}}]}', "metadata.list[1].__proto__"],
  ])("a __proto__ key in %s is refused, naming where it is", (text, where) => {
    for (const value of [text, JSON.parse(text) as unknown]) {
      expect(() => normalizeMetadata(value)).toThrow(ValidationError);
      expect(() => normalizeMetadata(value)).toThrow(`metadata key ${where} is not allowed`);
    }
  });

  test("a value that merely says __proto__ is fine; so are constructor and prototype keys", () => {
    const metadata = { note: "__proto__", constructor: { prototype: 1 } };
    expect(normalizeMetadata(metadata)).toEqual(metadata);
    expect(normalizeMetadata(JSON.stringify(metadata))).toEqual(metadata);
  });

  test("the depth limit is still checked, without recursion, however deep", () => {
    let deep: unknown = { leaf: 1 };
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    expect(() => normalizeMetadata(deep)).toThrow("metadata is nested more than 32 levels deep");
  });
});

describe("lookups (open_nodes, the delete tools)", () => {
  test("may be empty, but keep the size and text rules", () => {
    expect(() => checkEntityNameLookup("", "names[0]")).not.toThrow();
    expect(() => checkRelationLookup({ from: "", to: "", relationType: "" }, "relations[0]")).not.toThrow();
    expect(() => checkEntityNameLookup("n".repeat(1025), "names[0]")).toThrow("names[0] is 1025 characters; the limit is 1024");
    expect(() => checkRelationLookup({ from: "a", to: "b", relationType: "\udc00" }, "relations[3]")).toThrow(
      "relations[3].relationType contains an unpaired UTF-16 surrogate",
    );
  });
});
