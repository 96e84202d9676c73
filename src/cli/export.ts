import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { resolve } from "node:path";
import type { Writable } from "node:stream";
import { finished } from "node:stream/promises";

import { fileLinesOf } from "../domain/services/importGraph.js";
import { workspaceAndFiles } from "./args.js";
import { type Command, withServices } from "./command.js";
import { entityLine, relationLine, taggingLine, tagLine, validityLine } from "./memoryFile.js";

/** Entities read per page: bounded memory however large the workspace. */
const PAGE = 1000;

/**
 * `central-memory export --workspace W [FILE]`: writes W as JSONL the official memory server loads
 * (to stdout without FILE). Entities first, then relations, as that server writes its file; then the
 * tags (definitions, then what carries them), in lines of their own type, which that server skips.
 */
export const exportCommand: Command = {
  name: "export",
  summary: "write a workspace as memory.jsonl (loadable by the official memory server)",
  usage: "central-memory export --workspace <name> [file]",
  async run(args, io) {
    const { workspace, files } = workspaceAndFiles(args, { min: 0, max: 1 });
    const file = files[0] === undefined ? undefined : resolve(io.cwd, files[0]);
    const out = file ? createWriteStream(file, "utf8") : io.stdout;
    const counts = await withServices(io, async (services, storageRequests) => {
      const before = storageRequests();
      // Relations and tag lines are held back (they are small) so that all entity lines come first.
      const relations: string[] = [];
      const taggings: string[] = [];
      const validities: string[] = [];
      let entities = 0;
      let cursor: string | undefined;
      do {
        // Every fact held, superseded and ended ones too; the entity and relation lines say what is true now, and the
        // validity lines carry the times (memoryFile.ts).
        const held = await services.graph.readGraph(workspace, { limit: PAGE, includeSuperseded: true, ...(cursor ? { cursor } : {}) });
        const page = { ...fileLinesOf(held, Date.now()), cursor: held.cursor };
        validities.push(...page.validities.map(validityLine));
        for (const entity of page.entities) {
          await writeLine(out, entityLine(entity));
          if (entity.tags.length > 0) taggings.push(taggingLine(entity.name, undefined, entity.tags));
          for (const [observation, tagNames] of entity.observationTags) taggings.push(taggingLine(entity.name, observation, tagNames));
        }
        relations.push(...page.relations.map((r) => relationLine({ from: r.fromName, to: r.toName, relationType: r.relationType })));
        entities += page.entities.length;
        cursor = page.cursor;
      } while (cursor);
      for (const line of relations) await writeLine(out, line);
      const tags = await services.tags.allTags(workspace);
      for (const tag of tags) await writeLine(out, tagLine(tag));
      for (const line of taggings) await writeLine(out, line);
      for (const line of validities) await writeLine(out, line);
      return { entities, relations: relations.length, tags: tags.length, requests: storageRequests() - before };
    });
    if (file) {
      out.end();
      await finished(out);
    }
    io.stderr.write(
      `Exported ${counts.entities} entities, ${counts.relations} relations and ${counts.tags} tags from workspace '${workspace}'` +
        `${file ? ` to ${file}` : ""} (${counts.requests} storage requests).\n`,
    );
    return 0;
  },
};

async function writeLine(out: Writable, line: string): Promise<void> {
  if (!out.write(`${line}\n`)) await once(out, "drain");
}
