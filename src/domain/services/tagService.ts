import { NotFoundError, ValidationError } from "../model/errors.js";
import { entityId, observationId, tagId } from "../model/ids.js";
import { LIMITS } from "../model/limits.js";
import type { Actor, Entity, Relation, TagDefinition, TagUsage } from "../model/model.js";
import { compareText } from "../model/order.js";
import {
  checkCount,
  checkEntityName,
  checkLimit,
  checkObservation,
  checkTagCategory,
  checkTagDescription,
  checkTagName,
} from "../model/validation.js";
import type { GraphIndex } from "../ports/graphIndex.js";
import type { TagChange, TagRef, TagStore, TagTarget } from "../ports/store.js";
import { subgraph } from "../rules/subgraph.js";
import { entityThroughLens, lensOf, relationShows, type TimeLens } from "../rules/validity.js";

/** What a tag read asks of valid time (docs/history.md#two-times): default, true now. */
export interface TagLensInput {
  validAt?: string;
  includeSuperseded?: boolean;
}

export const DEFAULT_TAGGED_LIMIT = 50;

/**
 * The rules of tags, per workspace. A tag is named exactly (its id is derived from the name, as an
 * entity's is), goes on an entity or on one of its observations, and exists as a definition (with a
 * category and a description, empty unless set) from the first time it is used or defined until
 * delete_tags removes it everywhere. Deleting an entity or an observation removes its tags.
 */
export class TagService {
  /** `index` (docs/search.md) answers the whole-workspace reads: all tags, usage. */
  constructor(
    private readonly store: TagStore,
    private readonly index: Pick<GraphIndex, "listTags" | "tagUsage">,
    /** Now, in ms: what "true now" and an expiry are judged against. */
    private readonly clock: () => number = Date.now,
  ) {}

  /** The read's lens, checked. */
  lens(input: TagLensInput): TimeLens {
    return lensOf(input, this.clock());
  }

  /** Puts the tags on the entity; returns those it did not carry before. */
  tagEntity(workspace: string, actor: Actor, entityName: string, tagNames: readonly string[]): Promise<string[]> {
    return this.change("addTags", workspace, actor, { entityName }, tagNames);
  }

  /** Puts the tags on the entity's observation with exactly this content; returns those it did not carry before. */
  tagObservation(workspace: string, actor: Actor, entityName: string, content: string, tagNames: readonly string[]): Promise<string[]> {
    return this.change("addTags", workspace, actor, { entityName, content }, tagNames);
  }

  /** Takes the tags off the observation; returns those it carried. */
  untagObservation(workspace: string, actor: Actor, entityName: string, content: string, tagNames: readonly string[]): Promise<string[]> {
    return this.change("removeTags", workspace, actor, { entityName, content }, tagNames);
  }

  /** Takes the tags off the entity itself (its observations keep theirs); returns those it carried. */
  removeTagsFromEntity(workspace: string, actor: Actor, entityName: string, tagNames: readonly string[]): Promise<string[]> {
    return this.change("removeTags", workspace, actor, { entityName }, tagNames);
  }

  /** The four tagging tools in one: check everything, then add or remove the tags on the entity or one of its observations. */
  private async change(
    method: "addTags" | "removeTags",
    workspace: string,
    actor: Actor,
    on: { entityName: string; content?: string },
    tagNames: readonly string[],
  ): Promise<string[]> {
    const target =
      on.content === undefined ? this.entityTarget(workspace, on.entityName) : this.observationTarget(workspace, on.entityName, on.content);
    const change = await this.store[method](workspace, actor, target, this.refs(workspace, tagNames));
    return this.outcome(change, workspace, on.entityName, on.content);
  }

  /**
   * The entities carrying the tag, on themselves or on an observation: at most `limit`, by name, with
   * their observations and tags, plus every relation touching them; and how many carry it in all.
   *
   * Through `lens` (docs/history.md#two-times), each entity as it shows, and only if it still carries the tag (on itself
   * or an observation that shows); relations that show. These are storage reads (the tag's index rows, then each entity),
   * not the workspace index, so what the lens hides is left out after the read: `total` drops the hidden entities of the
   * page read, exact when the page holds every tagged entity; a relation's far end outside the page is not read, so a
   * relation to an expired entity beyond the page can be listed.
   */
  async entitiesByTag(
    workspace: string,
    tagName: string,
    limit = DEFAULT_TAGGED_LIMIT,
    lens: TimeLens = this.lens({}),
  ): Promise<{ entities: Entity[]; relations: Relation[]; total: number }> {
    checkTagName(tagName, "tagName");
    checkLimit(limit, "limit");
    const { nodes, total } = await this.store.entitiesByTag(workspace, tagId(workspace, tagName), limit);
    const shown = nodes.flatMap((node) => {
      const entity = entityThroughLens(node.entity, lens);
      return entity && carries(entity, tagName) ? [{ entity, relations: node.relations.filter((r) => relationShows(r, lens)) }] : [];
    });
    const hidden = new Set(nodes.map((node) => node.entity.id));
    for (const node of shown) hidden.delete(node.entity.id);
    const visible = shown.map((node) => ({
      ...node,
      relations: node.relations.filter((r) => !hidden.has(r.fromEntityId) && !hidden.has(r.toEntityId)),
    }));
    return { ...subgraph(visible), total: total - hidden.size };
  }

  /** Every tag of the workspace, by name. */
  async allTags(workspace: string): Promise<TagDefinition[]> {
    return (await this.index.listTags(workspace)).sort((a, b) => compareText(a.name, b.name));
  }

  /** Creates the tag, or sets its category and description (one left out keeps its value). */
  defineTag(
    workspace: string,
    actor: Actor,
    input: { name: string; category?: string; description?: string },
  ): Promise<{ tag: TagDefinition; created: boolean }> {
    checkTagName(input.name, "name");
    if (input.category !== undefined) checkTagCategory(input.category, "category");
    if (input.description !== undefined) checkTagDescription(input.description, "description");
    return this.store.defineTag(workspace, actor, { id: tagId(workspace, input.name), ...input });
  }

  /** Every tag with how many entities and observations carry it (that show through the read's lens): most used first, then by name. */
  async usage(workspace: string, input: TagLensInput = {}): Promise<TagUsage[]> {
    const total = (usage: TagUsage) => usage.entities + usage.observations;
    return (await this.index.tagUsage(workspace, this.lens(input))).sort((a, b) => total(b) - total(a) || compareText(a.name, b.name));
  }

  /** Removes the tags from everything that carries them, and their definitions. Unknown names are ignored. */
  deleteTags(
    workspace: string,
    actor: Actor,
    tagNames: readonly string[],
  ): Promise<{ deleted: string[]; entities: number; observations: number }> {
    return this.store.deleteTags(workspace, actor, this.refs(workspace, tagNames));
  }

  private entityTarget(workspace: string, entityName: string): TagTarget {
    checkEntityName(entityName, "entityName");
    return { entityId: entityId(workspace, entityName) };
  }

  private observationTarget(workspace: string, entityName: string, content: string): TagTarget {
    const { entityId: id } = this.entityTarget(workspace, entityName);
    checkObservation(content, "observationContent");
    return { entityId: id, observationId: observationId(id, content) };
  }

  /** The distinct tags named, in the order given. */
  private refs(workspace: string, tagNames: readonly string[]): TagRef[] {
    if (tagNames.length === 0) throw new ValidationError("tagNames is empty. Name at least one tag.");
    checkCount(tagNames, "tagNames", LIMITS.tagsPerCall);
    tagNames.forEach((name, i) => checkTagName(name, `tagNames[${i}]`));
    return [...new Set(tagNames)].map((name) => ({ id: tagId(workspace, name), name }));
  }

  private outcome(change: TagChange, workspace: string, entityName: string, content?: string): string[] {
    switch (change.status) {
      case "done":
        return change.tags;
      case "entity-missing":
        throw new NotFoundError(
          `Entity '${entityName}' not found in workspace '${workspace}'. Names match exactly; create it with create_entities or upsert_entity first.`,
        );
      case "observation-missing": {
        const shown = content !== undefined && content.length > 200 ? `${content.slice(0, 200)}…` : content;
        throw new NotFoundError(
          `Entity '${entityName}' has no observation '${shown}'. Give the observation's exact text, as open_nodes returns it.`,
        );
      }
    }
  }
}

/** Whether the entity carries the tag on itself or on one of its observations (those it holds as given). */
function carries(entity: Entity, tagName: string): boolean {
  if (entity.tags.includes(tagName)) return true;
  return entity.observations.some((content) => entity.observationTags.get(content)?.includes(tagName));
}
