import { z } from "zod";

import { LEGACY_VERSION } from "../domain/model/expectedVersion.js";
import type { Entity, GraphPage, Relation, Validity } from "../domain/model/model.js";
import { relationStatus, relationValidity, statusOf, type TimeLens } from "../domain/rules/validity.js";
import { READ_ONLY } from "./annotations.js";
import { metadataOutput, versionOutput } from "./schemas.js";

/**
 * The shapes tools return for entities and relations, and the one place each is projected from the
 * domain model, so a field added later (tags, say) is added here once for every tool that shows it.
 *
 * The official memory server's shapes come first. Their field descriptions are that server's
 * interface text, kept identical on purpose: clients built for it compare schemas, and
 * test/parity.test.ts checks them against @modelcontextprotocol/server-memory itself.
 */
export const officialEntity = z.object({
  name: z.string().describe("The name of the entity"),
  entityType: z.string().describe("The type of the entity"),
  observations: z.array(z.string()).describe("An array of observation contents associated with the entity"),
});

export const officialRelation = z.object({
  from: z.string().describe("The name of the entity where the relation starts"),
  to: z.string().describe("The name of the entity where the relation ends"),
  relationType: z.string().describe("The type of the relation"),
});

/** What search_nodes and open_nodes return (without the tags toolset). */
const officialGraph = { entities: z.array(officialEntity), relations: z.array(officialRelation) };

/**
 * Tags, added to an entity's shape on connections with the tags toolset. Observations stay strings, so
 * a client that knows only the official shape reads them unchanged; their tags are a parallel map.
 * Each field is present only when there is a tag to show.
 */
export const tagFields = {
  tags: z.array(z.string()).optional().describe("Tags on the entity itself, by name (present when it has any)."),
  observationTags: z
    .record(z.string(), z.array(z.string()))
    .optional()
    .describe("Tags of the observations that have any: observation content -> tag names (present when one has)."),
};

/** The official entity plus optional tags: what open_nodes, search_nodes and get_entities_by_tag return with the tags toolset. */
export const taggedEntity = officialEntity.extend(tagFields);

/** A tag as get_all_tags and define_tag return it. */
export const tagDefinition = z.object({ name: z.string(), category: z.string(), description: z.string() });

/** An entity's tag fields, each left out when empty. */
export function tagFieldsOf(entity: Entity): { tags?: string[]; observationTags?: Record<string, string[]> } {
  return {
    ...(entity.tags.length > 0 ? { tags: entity.tags } : {}),
    // fromEntries defines own properties, so any observation text (even "__proto__") is a plain key.
    ...(entity.observationTags.size > 0 ? { observationTags: Object.fromEntries(entity.observationTags) } : {}),
  };
}

/**
 * The two times on reads (docs/history.md#two-times): every read tool that takes `asOf` takes these too, and reads that
 * keep no history (open_nodes, search) take them for valid time alone.
 */
export const lensInput = {
  validAt: z
    .string()
    .optional()
    .describe(
      "An ISO 8601 time: what was true then (valid time), e.g. 2026-01-31. Default: true now. With asOf: what the memory, as it was at asOf, held to be true at validAt.",
    ),
  includeSuperseded: z
    .boolean()
    .optional()
    .describe("Also return superseded, ended and not-yet-valid facts, each marked with its status. Expired items stay hidden."),
};

const validityFields = {
  validFrom: z.string().optional().describe("When it became true (set when written or backdated; otherwise when it was written)."),
  validTo: z.string().optional().describe("When it stopped being true (superseded or ended)."),
  expiresAt: z.string().optional().describe("When the memory forgets it, unless pinned."),
  pinned: z.boolean().optional().describe("Exempt from expiry."),
  status: z
    .enum(["current", "superseded", "ended", "not-yet-valid", "expired"])
    .optional()
    .describe("Present when not current (with includeSuperseded)."),
};

/** An observation's valid time and expiry, as results show them. */
const observationValidityOutput = z.object({
  ...validityFields,
  supersededBy: z.string().optional().describe("The observation that replaced it."),
});

/** On an entity: its observations' valid time and expiry, by content, and its own expiry (each present only when set). */
export const entityValidityFields = {
  observationValidity: z
    .record(z.string(), observationValidityOutput)
    .optional()
    .describe(
      "Valid time and expiry of the observations that have any: observation content -> validFrom, validTo, supersededBy, expiresAt, pinned, status (present when one has).",
    ),
  expiresAt: validityFields.expiresAt,
  pinned: validityFields.pinned,
};

/** On a relation: its valid time and expiry (each present only when set). */
export const relationValidityFields = validityFields;

/**
 * open_nodes' and search_nodes' shape with the tags toolset: the tagged entity, plus its validity fields, present only when
 * the caller asked for valid time (validAt or includeSuperseded), so a default answer is the official one with tags.
 * Without the tags toolset the shape stays exactly the official one, and no validity fields are added.
 */
export const timedTaggedGraph = {
  entities: z.array(taggedEntity.extend(entityValidityFields)),
  relations: z.array(officialRelation),
};

const withStatus = (validity: Validity | undefined, status: ReturnType<typeof statusOf>) =>
  validity || status !== "current" ? { ...validity, ...(status !== "current" ? { status } : {}) } : undefined;

/** An entity's validity fields for results, each left out when absent; statuses as seen through `lens`. */
export function entityValidityOf(entity: Entity, lens: TimeLens): z.infer<z.ZodObject<typeof entityValidityFields>> {
  const observationValidity: Record<string, z.infer<typeof observationValidityOutput>> = {};
  for (const [content, validity] of entity.observationValidity ?? []) {
    const shown = withStatus(validity, statusOf(validity, lens));
    if (shown) observationValidity[content] = shown;
  }
  return {
    ...(Object.keys(observationValidity).length > 0 ? { observationValidity } : {}),
    ...(entity.expiresAt ? { expiresAt: entity.expiresAt } : {}),
    ...(entity.pinned ? { pinned: true } : {}),
  };
}

/** A relation's validity fields for results, each left out when absent; its status as seen through `lens`. */
export function relationValidityOf(relation: Relation, lens: TimeLens): z.infer<z.ZodObject<typeof relationValidityFields>> {
  return withStatus(relationValidity(relation), relationStatus(relation, lens)) ?? {};
}

/** What the official delete tools return. */
export const officialStatus = { success: z.boolean(), message: z.string() };

/** The official server renders results as JSON indented by two spaces. */
export const indentedJson = (value: unknown): string => JSON.stringify(value, null, 2);

const toOfficialEntity = (entity: Entity): z.infer<typeof officialEntity> => ({
  name: entity.name,
  entityType: entity.entityType,
  observations: entity.observations,
});

const toOfficialRelation = (relation: Relation): z.infer<typeof officialRelation> => ({
  from: relation.fromName,
  to: relation.toName,
  relationType: relation.relationType,
});

/**
 * The official graph shape, with each entity's tags when `withTags` (the connection selected the tags toolset), and, with
 * tags too, its validity fields as seen through `lens` when one is given (the caller asked for valid time).
 */
export function toOfficialGraph(
  graph: { entities: Entity[]; relations: Relation[] },
  withTags = false,
  lens?: TimeLens,
): z.infer<z.ZodObject<typeof timedTaggedGraph>> {
  return {
    entities: graph.entities.map((entity) => ({
      ...toOfficialEntity(entity),
      ...(withTags ? tagFieldsOf(entity) : {}),
      ...(withTags && lens ? entityValidityOf(entity, lens) : {}),
    })),
    relations: graph.relations.map(toOfficialRelation),
  };
}

/**
 * Who created a row and who last changed it (principal ids: `key:<id>`, `entra:<oid>`, `anonymous`,
 * `cli`). Optional: rows written before authorship was recorded have neither.
 */
export const authorshipFields = {
  createdBy: z
    .string()
    .optional()
    .describe("Who created it: key:<id>, entra:<oid>, anonymous or cli. Absent on older data and in mode 'names'."),
  updatedBy: z.string().optional().describe("Who last changed it, in the same form. Absent on older data and in mode 'names'."),
};

/** The authorship a row records, each field left out when absent. */
export function authorshipOf(item: { createdBy?: string; updatedBy?: string }): { createdBy?: string; updatedBy?: string } {
  return {
    ...(item.createdBy !== undefined ? { createdBy: item.createdBy } : {}),
    ...(item.updatedBy !== undefined ? { updatedBy: item.updatedBy } : {}),
  };
}

/** The version a full read reports: the row's, or LEGACY_VERSION for rows written before versions. */
export const versionOrLegacy = (item: { version?: string }): string => item.version ?? LEGACY_VERSION;

/** read_graph's shape: a superset of the official one (ids, metadata) and of the Central-Memory API's. */
const graphEntity = z.object({
  id: z.string(),
  name: z.string(),
  entityType: z.string(),
  observations: z.array(z.string()).optional().describe("In the order they were added. Absent in mode 'names'."),
  metadata: metadataOutput.optional().describe("Absent in mode 'names'."),
  ...authorshipFields,
  version: versionOutput.optional().describe("The version of its own fields (pass as expectedVersion). Absent in mode 'names'."),
  ...tagFields,
  ...entityValidityFields,
});

/** A relation by its ends, as every tool that lists relations shows it (more fields may follow). */
export const relationEnds = {
  id: z.string(),
  from: z.string(),
  to: z.string(),
  fromEntityId: z.string(),
  toEntityId: z.string(),
  relationType: z.string(),
};

export const relationEndsOf = (r: Pick<Relation, "id" | "fromName" | "toName" | "fromEntityId" | "toEntityId" | "relationType">) => ({
  id: r.id,
  from: r.fromName,
  to: r.toName,
  fromEntityId: r.fromEntityId,
  toEntityId: r.toEntityId,
  relationType: r.relationType,
});

const graphRelation = z.object({
  ...relationEnds,
  metadata: metadataOutput.optional().describe("Absent in mode 'names'."),
  ...authorshipFields,
  version: versionOutput.optional().describe("The version of its own fields (pass as expectedVersion). Absent in mode 'names'."),
  ...relationValidityFields,
});

export const graphOutput = {
  workspaceName: z.string(),
  entities: z.array(graphEntity),
  relations: z.array(graphRelation),
  cursor: z.string().optional().describe("Present when more entities follow: pass it back as `cursor` for the next page."),
};

/**
 * read_graph's JSON; entities carry their tags when `withTags` (observation tags only in mode "full"), and entities and
 * relations their validity fields where set, statuses as seen through `lens` (observations' only in mode "full").
 */
export function toGraphOutput(
  workspace: string,
  page: GraphPage,
  mode: "full" | "names" = "full",
  withTags = false,
  lens?: TimeLens,
): z.infer<z.ZodObject<typeof graphOutput>> {
  const full = mode === "full";
  return {
    workspaceName: workspace,
    entities: page.entities.map((e) => ({
      id: e.id,
      name: e.name,
      entityType: e.entityType,
      ...(full ? { observations: e.observations, metadata: e.metadata, ...authorshipOf(e), version: versionOrLegacy(e) } : {}),
      ...(withTags ? tagFieldsOf(e) : {}),
      ...(lens ? entityValidityOf(full ? e : { ...e, observationValidity: undefined }, lens) : {}),
    })),
    relations: page.relations.map((r) => ({
      ...relationEndsOf(r),
      ...(full ? { metadata: r.metadata, ...authorshipOf(r), version: versionOrLegacy(r) } : {}),
      ...(lens ? relationValidityOf(r, lens) : {}),
    })),
    ...(page.cursor !== undefined ? { cursor: page.cursor } : {}),
  };
}

/**
 * How open_nodes and search_nodes answer, as the official server does: its graph shape exactly
 * (with the tags toolset, plus optional tag fields), indented JSON text, read-only annotations.
 */
export const officialGraphAnswer = {
  output: timedTaggedGraph,
  outputWithoutTags: officialGraph,
  annotations: READ_ONLY,
  exactOutputSchema: true,
  text: indentedJson,
};
