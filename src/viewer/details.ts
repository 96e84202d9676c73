import { byId, el, linkButton, swatch } from "./dom.js";
import { merge } from "./graph.js";
import type { ToolInfo } from "./rpc.js";
import { addEntity, api, type ChangeEvent, entities, type EntityView, type RelationView, view } from "./state.js";

/** One entity: its panel (details, relations, history), selecting it, and expanding its neighbourhood. */

/** The input a tool takes for "this one entity": its schema names the field (get_neighbors is another helper's tool). */
function entityArgument(tool: ToolInfo, name: string): Record<string, unknown> {
  const properties = tool.inputSchema?.properties ?? {};
  for (const field of ["entityName", "name", "entityNames", "names", "entities", "from"]) {
    if (field in properties) return { [field]: properties[field]?.type === "array" ? [name] : name };
  }
  return { entityName: name };
}

/** Expands an entity's neighbourhood: get_neighbors when offered, else its relations and open_nodes for the new ends. */
export async function expand(name: string): Promise<void> {
  const neighbors = view.tools.get("get_neighbors");
  if (neighbors) {
    const answer = await api.call<{ entities: (EntityView & { id: string })[]; relations: RelationView[] }>(
      "get_neighbors",
      entityArgument(neighbors, name),
    );
    merge(answer.entities, answer.relations);
    return;
  }
  const answer = await api.call<{ relations: { fromName: string; toName: string; relationType: string; relationId: string }[] }>(
    "get_entity_relations",
    { entityName: name, direction: "both" },
  );
  const ends = [...new Set(answer.relations.flatMap((r) => [r.fromName, r.toName]))].filter((end) => !entities.has(end));
  const opened = ends.length > 0 ? await api.call<{ entities: EntityView[] }>("open_nodes", { names: ends }) : { entities: [] };
  merge(
    opened.entities,
    answer.relations.map((r) => ({ id: r.relationId, from: r.fromName, to: r.toName, relationType: r.relationType })),
  );
}

/** Selects an entity, adding it to the graph first when the page did not hold it (a large workspace). */
export async function focus(entity: EntityView): Promise<void> {
  if (!entities.has(entity.name)) merge([entity], []);
  const node = view.cy?.getElementById(entity.name);
  if (node && node.nonempty()) {
    view.cy?.elements().unselect();
    node.select();
    view.cy?.animate({ center: { eles: node }, duration: 0 });
  }
  await showDetails(entity.name);
}

export async function showDetails(name: string): Promise<void> {
  const panel = byId("details");
  panel.hidden = false;
  byId("app").classList.remove("no-details");
  panel.replaceChildren(el("h3", {}, name), el("p", { className: "muted" }, "Loading…"));
  let entity = entities.get(name);
  if (!entity?.observations) {
    const opened = await api.call<{ entities: EntityView[] }>("open_nodes", { names: [name] });
    if (opened.entities[0]) addEntity(opened.entities[0]);
    entity = entities.get(name);
  }
  // The history's oldest event is the creation; the newest events come from the feed, newest first.
  const withHistory = view.tools.has("get_entity_history") && view.tools.has("get_changes");
  const [links, first, recent] = await Promise.all([
    api.call<{ relations: { fromName: string; toName: string; relationType: string; createdBy?: string }[] }>("get_entity_relations", {
      entityName: name,
      direction: "both",
    }),
    withHistory ? api.call<{ events: ChangeEvent[] }>("get_entity_history", { entityName: name, limit: 1 }) : undefined,
    withHistory ? api.call<{ events: ChangeEvent[] }>("get_changes", { entityName: name, limit: 10 }) : undefined,
  ]);
  if (!entity) {
    panel.replaceChildren(el("h3", {}, name), el("p", { className: "muted" }, "This entity no longer exists."));
    return;
  }
  const events = recent?.events ?? [];
  const newest = events[0];
  const oldest = first?.events[0];
  const expandButton = el("button", { onClick: () => void expand(name) }, "Expand neighbourhood");
  expandButton.type = "button";
  panel.replaceChildren(
    el("h3", {}, name),
    el("p", {}, swatch(entity.entityType), entity.entityType),
    el("div", {}, tagList(entity.tags ?? [])),
    el(
      "p",
      { className: "muted" },
      `Created by ${entity.createdBy ?? oldest?.principal ?? "unknown"}${oldest ? ` at ${oldest.at}` : entity.createdAt ? ` at ${entity.createdAt}` : ""}. `,
      `Last changed by ${entity.updatedBy ?? newest?.principal ?? "unknown"}${newest ? ` at ${newest.at}` : entity.updatedAt ? ` at ${entity.updatedAt}` : ""}.`,
    ),
    expandButton,
    el("h2", {}, `Observations (${entity.observations?.length ?? 0})`),
    el(
      "ul",
      { className: "observations" },
      ...(entity.observations ?? []).map((text) =>
        el("li", { className: "observation" }, el("span", { className: "text" }, text), tagList(entity?.observationTags?.[text] ?? [])),
      ),
    ),
    el("h2", {}, `Relations (${links.relations.length})`),
    el(
      "ul",
      {},
      ...links.relations.map((r) =>
        el(
          "li",
          {},
          r.fromName === name ? "→ " : "← ",
          el("span", { className: "muted" }, r.relationType, " "),
          linkButton(
            r.fromName === name ? r.toName : r.fromName,
            () => void focus({ name: r.fromName === name ? r.toName : r.fromName, entityType: "" }),
          ),
        ),
      ),
    ),
    el("h2", {}, "History"),
    el(
      "ul",
      {},
      ...events.map((event) => el("li", {}, el("span", { className: "muted" }, `${event.at} ${event.principal}: `), event.summary)),
    ),
  );
}

function tagList(tags: string[]): HTMLElement | undefined {
  if (tags.length === 0) return undefined;
  return el("span", { className: "tags" }, ...tags.map((tag) => el("span", { className: "tag" }, tag)));
}
