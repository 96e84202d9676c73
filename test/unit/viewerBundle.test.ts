import { describe, expect, test } from "@jest/globals";

import { inlineSafe } from "../../scripts/viewerBundle.mjs";

/** The app's script, inlined in mcp-app.html (scripts/viewerBundle.mjs): rewritten to be safe there, or the build fails. */
describe("the inline script rewrite", () => {
  test("escapes '://' and '</' inside literals, and the code still parses and means the same", async () => {
    const code = 'const a="https://json-schema.org/x",b=/<\\/p>/,c=`</div>`;export{a,b,c};';
    const safe = await inlineSafe(code);
    expect(safe).not.toContain("://");
    expect(safe).not.toContain("</");
    // Evaluated, the rewritten literals are the original strings.
    const values = new Function(`${safe.replace(/export\{.*\};$/, "")}return [a, b.source, c];`)() as string[];
    expect(values).toEqual(["https://json-schema.org/x", "<\\/p>", "</div>"]);
  });

  test("fails the build on what would end or re-enter the script element, and on String.raw", async () => {
    await expect(inlineSafe('const a="<!-- x";')).rejects.toThrow('holds "<!--"');
    await expect(inlineSafe('const a="<SCRIPT>";')).rejects.toThrow('holds "<SCRIPT"');
    await expect(inlineSafe("const a=String.raw`a://b`;")).rejects.toThrow('holds "String.raw"');
  });

  test("fails the build when the rewritten code no longer parses", async () => {
    // "</" outside a literal (a comparison with a regex after it): the rewrite breaks the syntax, and the check says so.
    await expect(inlineSafe("let x=1,y=/a/;x</y/;")).rejects.toThrow("no longer parses");
  });
});
