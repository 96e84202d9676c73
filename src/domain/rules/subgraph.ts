import type { Entity, EntityNode, Relation } from "../model/model.js";
import { byCreation } from "../model/order.js";

/** Entities in the order given, and the relations touching them, each once, oldest first. */
export function subgraph(nodes: readonly EntityNode[]): { entities: Entity[]; relations: Relation[] } {
  const relations = new Map<string, Relation>();
  for (const node of nodes) for (const relation of node.relations) relations.set(relation.id, relation);
  return { entities: nodes.map((node) => node.entity), relations: [...relations.values()].sort(byCreation) };
}
