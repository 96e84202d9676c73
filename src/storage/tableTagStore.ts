import type { Actor, EntityNode, TagDefinition } from "../domain/model/model.js";
import { compareText } from "../domain/model/order.js";
import type { TagChange, TagRef, TagStore, TagTarget } from "../domain/ports/store.js";
import { keyRange } from "./rows/keys.js";
import { assembleEntity, text } from "./rows/rows.js";
import type { StorageConnection } from "./table/client.js";
import type { TableGateway } from "./table/gateway.js";
import type { BoundWrites } from "./writes/retention.js";
import { INDEX_COLUMNS, type tagWrites } from "./writes/tagWrites.js";

/**
 * Tags in Table Storage (layout in keys.ts): the reads here, the writes in tagWrites.ts. Finding by tag
 * is a range query of the tag's index rows, not a partition scan.
 */
export class TableTagStore implements TagStore {
  private readonly gateway: TableGateway;

  constructor(
    storage: StorageConnection,
    /** The tag writes, bound and wrapped in history pruning by the graph store (retention.ts). */
    private readonly writes: BoundWrites<typeof tagWrites>,
  ) {
    this.gateway = storage.gateway;
  }

  addTags(workspace: string, actor: Actor, target: TagTarget, tags: readonly TagRef[]): Promise<TagChange> {
    return this.writes.addTags(workspace, actor, target, tags);
  }

  removeTags(workspace: string, actor: Actor, target: TagTarget, tags: readonly TagRef[]): Promise<TagChange> {
    return this.writes.removeTags(workspace, actor, target, tags);
  }

  async entitiesByTag(workspace: string, tagId: string, limit: number): Promise<{ nodes: EntityNode[]; total: number }> {
    const index = await this.gateway.queryRange(workspace, keyRange.tagIndex(tagId), INDEX_COLUMNS);
    const names = new Map(index.map((row) => [text(row.entityId), text(row.entityName)]));
    const ids = [...names.keys()].sort((a, b) => compareText(names.get(a)!, names.get(b)!) || compareText(a, b));
    const nodes = await Promise.all(
      ids.slice(0, limit).map(async (id) => assembleEntity(await this.gateway.queryRange(workspace, keyRange.wholeEntity(id)))),
    );
    // An entity deleted between the two reads is left out.
    return { nodes: nodes.filter((node): node is EntityNode => node !== undefined), total: ids.length };
  }

  defineTag(
    workspace: string,
    actor: Actor,
    tag: TagRef & { category?: string; description?: string },
  ): Promise<{ tag: TagDefinition; created: boolean }> {
    return this.writes.defineTag(workspace, actor, tag);
  }

  deleteTags(
    workspace: string,
    actor: Actor,
    tags: readonly TagRef[],
  ): Promise<{ deleted: string[]; entities: number; observations: number }> {
    return this.writes.deleteTags(workspace, actor, tags);
  }
}
