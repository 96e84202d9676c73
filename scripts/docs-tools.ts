import { readFileSync, writeFileSync } from "node:fs";

import { ALL_TOOLS } from "../src/mcp/tools/index.js";
import { renderToolsReference, withReadmeToolTable } from "./toolsReference.js";

/** `npm run docs`: rewrites docs/tools.md and the README's tool table from the tool definitions. */
writeFileSync("docs/tools.md", renderToolsReference(ALL_TOOLS));
writeFileSync("README.md", withReadmeToolTable(readFileSync("README.md", "utf8"), ALL_TOOLS));
console.log(`Wrote docs/tools.md and the tool table in README.md (${ALL_TOOLS.length} tools).`);
