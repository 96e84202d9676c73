import { createReadStream } from "node:fs";
import { resolve } from "node:path";
import { createInterface } from "node:readline";

import type { ImportInput } from "../domain/services/importGraph.js";
import { workspaceAndFiles } from "./args.js";
import { type Command, withServices } from "./command.js";
import { parseLine } from "./memoryFile.js";
import { progress } from "./progress.js";

/** What the rows an import writes record as createdBy/updatedBy: the command, not a network caller. */
const CLI_ACTOR = { principal: "cli", tool: "import" };

/**
 * `central-memory import --workspace W FILE`: merges a server-memory JSONL file into W. Only adds
 * (so a second run changes nothing); bad lines are reported by number and skipped; the exit code is
 * 1 if any line was not imported.
 */
export const importCommand: Command = {
  name: "import",
  summary: "merge a memory.jsonl file (the official memory server's format) into a workspace",
  usage: "central-memory import --workspace <name> <file>",
  async run(args, io) {
    const { workspace, files } = workspaceAndFiles(args, { min: 1, max: 1 });
    const file = resolve(io.cwd, files[0]!);
    const input: Required<ImportInput> = { entities: [], relations: [], tags: [], taggings: [], validities: [] };
    const failures: string[] = [];
    const fail = (message: string) => {
      failures.push(message);
      io.stderr.write(`${message}\n`);
    };
    let lineNumber = 0;
    for await (const raw of createInterface({ input: createReadStream(file, "utf8"), crlfDelay: Infinity })) {
      lineNumber += 1;
      const parsed = parseLine(lineNumber === 1 ? raw.replace(/^\uFEFF/, "") : raw, lineNumber);
      if (parsed.kind === "entity") input.entities.push(parsed.item);
      else if (parsed.kind === "relation") input.relations.push(parsed.item);
      else if (parsed.kind === "tag") input.tags.push(parsed.item);
      else if (parsed.kind === "tagging") input.taggings.push(parsed.item);
      else if (parsed.kind === "validity") input.validities.push(parsed.item);
      else if (parsed.kind === "malformed") fail(`line ${lineNumber}: ${parsed.reason}`);
      else if (parsed.kind === "other") io.stderr.write(`line ${lineNumber}: type '${parsed.type}' is not imported; skipped\n`);
    }

    const bar = progress(io, `Importing into '${workspace}'`);
    const { report, seconds, requests } = await withServices(io, async (services, storageRequests) => {
      const [started, before] = [performance.now(), storageRequests()]; // the import itself, not starting storage
      const result = await services.graph.importGraph(workspace, CLI_ACTOR, input, (done, total) => bar.update(done, total));
      return { report: result, seconds: (performance.now() - started) / 1000, requests: storageRequests() - before };
    });
    bar.finish();

    for (const { line, relation, missing } of report.missingEndpoints) {
      const names = missing.map((name) => `'${name}'`).join(" and ");
      fail(
        `line ${line}: relation ${JSON.stringify(relation)} not imported: ${names} ${missing.length > 1 ? "are" : "is"} in neither the file nor the workspace`,
      );
    }
    for (const { line, entityName, observation, missing } of report.missingTagTargets) {
      const target = observation === undefined ? `entity '${entityName}'` : `observation ${JSON.stringify(observation)} of '${entityName}'`;
      const where =
        missing === "entity" ? `'${entityName}' is in neither the file nor the workspace` : "the entity has no such observation";
      fail(`line ${line}: tags for ${target} not imported: ${where}`);
    }
    for (const { line, entityName } of report.missingValidityTargets) {
      fail(`line ${line}: validity not imported: '${entityName}' is in neither the file nor the workspace`);
    }
    const items = input.entities.length + input.relations.length + input.tags.length + input.taggings.length + input.validities.length;
    io.stdout.write(
      `Imported ${file} into workspace '${workspace}': ` +
        `${report.entitiesCreated} entities created (${report.entitiesExisting} already there), ${report.observationsAdded} observations added, ` +
        `${report.relationsCreated} relations created (${report.relationsExisting} already there), ` +
        `${report.tagsCreated} tag definitions created (${report.tagsExisting} already there), ${report.tagLinksAdded} tags put on entities and observations` +
        `${input.validities.length > 0 ? `, ${report.validitiesApplied} valid times and expiries set` : ""}.\n` +
        `${items} items in ${seconds.toFixed(1)} s (${Math.round(items / Math.max(seconds, 0.001))} items/s), ${requests} storage requests.\n`,
    );
    if (failures.length > 0) io.stdout.write(`${failures.length} line(s) not imported; see above.\n`);
    return failures.length > 0 ? 1 : 0;
  },
};
