import { ValidationError } from "../model/errors.js";
import { entityId, isGuid } from "../model/ids.js";
import { checkEntityName } from "../model/validation.js";

/** An entity named by its GUID, its name, or both (then they must agree). */
export interface EntityRef {
  /** The entity's GUID; takes the place of `name` when given. */
  id?: string;
  name?: string;
}

/** The caller's argument names for a reference, so a message says which one to drop; `role` names the entity in one. */
export interface RefFields {
  id: string;
  name: string;
  role?: string;
}

/**
 * The id of the entity a reference names, with no read: ids derive from names
 * (docs/architecture.md#table-layout), so an id given with a name is checked against it.
 *
 * @example
 * idOf("team", { name: "Alice" }, { id: "entityId", name: "entityName" }); // entityId("team", "Alice")
 */
export function idOf(workspace: string, ref: EntityRef, fields: RefFields): string {
  if (ref.name !== undefined) checkEntityName(ref.name, fields.name);
  if (ref.id !== undefined) {
    if (!isGuid(ref.id)) throw new ValidationError(`'${ref.id}' is not an entity id (a GUID). Pass the entity's name instead.`);
    const id = ref.id.toLowerCase();
    const named = ref.name === undefined ? id : entityId(workspace, ref.name);
    if (named !== id) {
      throw new ValidationError(
        `${fields.id} '${id}' and ${fields.name} '${ref.name}' name different entities (the id of '${ref.name}' is '${named}'). ` +
          `Give one: drop ${fields.id} to use the name, or drop ${fields.name} to use the id.`,
      );
    }
    return id;
  }
  if (ref.name !== undefined) return entityId(workspace, ref.name);
  throw new ValidationError(`Name ${fields.role ?? "the entity"}: give ${fields.id} or ${fields.name}.`);
}
