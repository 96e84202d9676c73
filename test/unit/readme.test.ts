import { readFileSync } from "node:fs";

import { describe, expect, test } from "@jest/globals";

/** The README's "Run it, test it" gives both commands, and CI runs the test command exactly as the README gives it. */
const readme = readFileSync("README.md", "utf8");
const section = readme.slice(readme.indexOf("## Run it, test it"), readme.indexOf("\n## ", readme.indexOf("## Run it, test it") + 1));
const commands = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((block) =>
  block[1]!
    .split("\n")
    .map((line) => line.replace(/#.*$/, "").trim())
    .filter(Boolean),
);

describe("the README's first commands", () => {
  test("give the command to run it and the command to test it, and what the tests need", () => {
    expect(commands).toEqual(expect.arrayContaining(["npm start", "npm test"]));
    expect(section).toMatch(/Chromium/);
    expect(section).toMatch(/skipped/);
  });

  test(".ci/run runs the README's test command, exactly", () => {
    const ci = readFileSync(".ci/run", "utf8")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith("#"));
    expect(ci).toContain(commands.find((command) => command.startsWith("npm test")));
  });
});
