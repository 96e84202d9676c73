/** JSON object attached to an entity or relation by the caller. */
export type Metadata = Record<string, unknown>;

export interface Entity {
  id: string;
  name: string;
  entityType: string;
  /** In the order they were first added. */
  observations: string[];
  metadata: Metadata;
  createdAt: string;
  updatedAt: string;
}

export interface Relation {
  id: string;
  fromEntityId: string;
  fromName: string;
  toEntityId: string;
  toName: string;
  relationType: string;
  metadata: Metadata;
  createdAt: string;
  updatedAt: string;
}

export type Direction = "out" | "in" | "both";

/** One page of a workspace graph. `cursor` is absent on the last page. */
export interface GraphPage {
  entities: Entity[];
  relations: Relation[];
  cursor?: string;
}
