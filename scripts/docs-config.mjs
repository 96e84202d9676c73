// `npm run docs`: writes docs/configuration.md from the settings table (built into dist/ by the predocs script).
import { mkdirSync, writeFileSync } from "node:fs";
import { stdout } from "node:process";

import { configurationReference } from "../dist/src/config/reference.js";

mkdirSync("docs", { recursive: true });
writeFileSync("docs/configuration.md", configurationReference());
stdout.write("wrote docs/configuration.md\n");
