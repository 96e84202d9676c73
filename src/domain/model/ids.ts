import { v5 as uuidv5 } from "uuid";

/**
 * Ids are deterministic UUIDv5s (docs/architecture.md#table-layout): the same name always yields the same id, so the
 * row key itself enforces uniqueness and concurrent creators converge on one row without a read.
 */
const ROOT_NAMESPACE = "5b0e6a43-3f0e-4a51-9b8e-6c1f3f1d2a7e";

function workspaceNamespace(workspaceName: string): string {
  return uuidv5(workspaceName, ROOT_NAMESPACE);
}

export function entityId(workspaceName: string, name: string): string {
  return uuidv5(`entity:${name}`, workspaceNamespace(workspaceName));
}

export function relationId(workspaceName: string, fromId: string, relationType: string, toId: string): string {
  return uuidv5(`relation:${fromId}\n${relationType}\n${toId}`, workspaceNamespace(workspaceName));
}

/** A tag of a workspace: its name, matched exactly, decides its id (as an entity's does). */
export function tagId(workspaceName: string, name: string): string {
  return uuidv5(`tag:${name}`, workspaceNamespace(workspaceName));
}

export function observationId(entityIdValue: string, content: string): string {
  return uuidv5(`observation:${content}`, entityIdValue);
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isGuid(value: string): boolean {
  return GUID.test(value);
}

/** The ids of a relation given by names: its own, and its endpoints'. */
export function relationIds(workspace: string, relation: { from: string; to: string; relationType: string }) {
  const fromEntityId = entityId(workspace, relation.from);
  const toEntityId = entityId(workspace, relation.to);
  return { id: relationId(workspace, fromEntityId, relation.relationType, toEntityId), fromEntityId, toEntityId };
}

/** What the store writes for a relation given by names. */
export function relationWrite(workspace: string, relation: { from: string; to: string; relationType: string }) {
  return { ...relationIds(workspace, relation), fromName: relation.from, toName: relation.to, relationType: relation.relationType };
}
