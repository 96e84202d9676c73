import { byId, el } from "./dom.js";
import { syncNodeList } from "./nodeList.js";
import type { GraphSlice } from "./shapes.js";
import { api, entities, relations, view } from "./state.js";

/**
 * The filters: by entity type, by tag and by relation type. Over the drawn graph when it holds the whole workspace; when
 * it holds part of it (hubs, one neighbourhood, a search, or a tag, which an observation may carry), app_filter reads what
 * matches and it is added first.
 */

/** Tags the workspace defined (get_all_tags), offered in the filter with those the viewer saw in use. */
export const definedTags = new Set<string>();

export function fillFilters(): void {
  const types = new Set<string>();
  const tags = new Set<string>(definedTags);
  for (const entity of entities.values()) {
    if (entity.entityType !== "") types.add(entity.entityType);
    for (const tag of entity.tags ?? []) tags.add(tag);
  }
  const relationTypes = new Set([...relations.values()].map((r) => r.relationType));
  setOptions(byId<HTMLSelectElement>("filter-type"), types);
  const tagSelect = byId<HTMLSelectElement>("filter-tag");
  setOptions(tagSelect, tags);
  // A tag filter is read from the server (observations carry tags the graph does not hold): without app_filter it could
  // not be applied, so it is not offered rather than left showing a stale match.
  tagSelect.disabled = !view.tools.has("app_filter");
  tagSelect.title = tagSelect.disabled ? "Filtering by tag needs the app_filter tool, which this connection does not offer." : "";
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
  if (chosen !== "" && !values.has(chosen)) select.append(Object.assign(el("option", {}, chosen), { value: chosen }));
  select.value = chosen;
}

/** The chosen tag; none while the select is disabled (no app_filter to apply it). */
const tagChoice = (select: HTMLSelectElement) => (select.disabled ? "" : select.value);

/** What the filters ask for now. */
function chosen(): { entityType: string; tag: string; relationType: string } {
  return {
    entityType: byId<HTMLSelectElement>("filter-type").value,
    tag: tagChoice(byId<HTMLSelectElement>("filter-tag")),
    relationType: byId<HTMLSelectElement>("filter-relation").value,
  };
}

/**
 * A filter changed: reads what matches from the server when the graph holds only part of the workspace, or a tag is
 * chosen (an observation's tag is not in the graph), and adds it; then hides what does not match.
 */
export async function refilter(merge: (slice: GraphSlice) => void): Promise<void> {
  const { entityType, tag, relationType } = chosen();
  const any = entityType !== "" || tag !== "" || relationType !== "";
  if (any && (view.partial || tag !== "") && view.tools.has("app_filter")) {
    const slice = await api.call<GraphSlice>("app_filter", {
      ...(entityType !== "" ? { entityType } : {}),
      ...(tag !== "" ? { tag } : {}),
      ...(relationType !== "" ? { relationType } : {}),
      ...(view.asOf !== undefined ? { asOf: view.asOf } : {}),
    });
    view.tagged = tag !== "" ? new Set(slice.entities.map((entity) => entity.name)) : undefined;
    merge(slice);
  } else view.tagged = undefined; // no tag chosen, or no app_filter to read its match: no tag filter, not the last one
  applyFilters();
}

export function applyFilters(): void {
  if (!view.cy) return;
  const graph = view.cy;
  const { entityType: type, relationType } = chosen();
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
  syncNodeList();
}
