import { byId, el } from "./dom.js";
import { entities, relations, view } from "./state.js";

/** The filters over the drawn graph: by entity type, by tag (view.tagged) and by relation type. */

/** Tags the workspace defined (get_all_tags), offered in the filter with those the page saw in use. */
export const definedTags = new Set<string>();

export function fillFilters(): void {
  const types = new Set<string>();
  const tags = new Set<string>(definedTags);
  for (const entity of entities.values()) {
    types.add(entity.entityType);
    for (const tag of entity.tags ?? []) tags.add(tag);
    for (const list of Object.values(entity.observationTags ?? {})) for (const tag of list) tags.add(tag);
  }
  const relationTypes = new Set([...relations.values()].map((r) => r.relationType));
  setOptions(byId<HTMLSelectElement>("filter-type"), types);
  setOptions(byId<HTMLSelectElement>("filter-tag"), tags);
  setOptions(byId<HTMLSelectElement>("filter-relation"), relationTypes);
}

function setOptions(select: HTMLSelectElement, values: Set<string>): void {
  const chosen = select.value;
  const options = [...values].sort().map((value) => {
    const option = el("option", {}, value);
    option.value = value;
    return option;
  });
  const all = el("option", {}, "all");
  all.value = "";
  select.replaceChildren(all, ...options);
  select.value = values.has(chosen) ? chosen : "";
}

export function applyFilters(): void {
  if (!view.cy) return;
  const graph = view.cy;
  const type = byId<HTMLSelectElement>("filter-type").value;
  const relationType = byId<HTMLSelectElement>("filter-relation").value;
  graph.batch(() => {
    graph.nodes().forEach((node) => {
      const entity = entities.get(node.id());
      const shown =
        entity !== undefined &&
        (type === "" || entity.entityType === type) &&
        (view.tagged === undefined || view.tagged.has(entity.name)) &&
        (relationType === "" || node.connectedEdges().some((edge) => edge.data("type") === relationType));
      node.toggleClass("hidden", !shown);
    });
    graph.edges().forEach((edge) => {
      const shown =
        (relationType === "" || edge.data("type") === relationType) &&
        !edge.source().hasClass("hidden") &&
        !edge.target().hasClass("hidden");
      edge.toggleClass("hidden", !shown);
    });
  });
}
