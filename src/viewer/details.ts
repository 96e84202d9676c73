import { byId, el, linkButton, swatch } from "./dom.js";
import { merge } from "./graph.js";
import type { ToolInfo } from "./rpc.js";
import { addEntity, api, type ChangeEvent, entities, type EntityView, type FactValidity, type RelationView, view } from "./state.js";

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
  view.selected = name;
  // The panel reads the entity each time it opens (in parallel with the rest), so it shows the facts true now whatever
  // put it in the page (a search hit carries what its tool returned). "Show superseded" reads it with everything not true
  // any more, marked; that read is not kept, so the graph and a later panel show current facts.
  const lens = view.showSuperseded ? { includeSuperseded: true } : {};
  // The history's oldest event is the creation; the newest events come from the feed, newest first.
  const withHistory = view.tools.has("get_entity_history") && view.tools.has("get_changes");
  const [opened, links, first, recent] = await Promise.all([
    api.call<{ entities: EntityView[] }>("open_nodes", { names: [name], ...lens }),
    api.call<{ relations: { fromName: string; toName: string; relationType: string; createdBy?: string; status?: string }[] }>(
      "get_entity_relations",
      { entityName: name, direction: "both", ...lens },
    ),
    withHistory ? api.call<{ events: ChangeEvent[] }>("get_entity_history", { entityName: name, limit: 1 }) : undefined,
    withHistory ? api.call<{ events: ChangeEvent[] }>("get_changes", { entityName: name, limit: 10 }) : undefined,
  ]);
  const read = opened.entities[0];
  if (read && !view.showSuperseded) addEntity(read);
  const entity = read && { ...entities.get(name), ...read };
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
        observationItem(text, entity?.observationValidity?.[text], tagList(entity?.observationTags?.[text] ?? [])),
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
          r.status ? el("span", { className: "muted status" }, ` (${r.status})`) : undefined,
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

/**
 * One observation: its text, struck through when it is not true now (superseded, ended, not yet valid), with its status
 * and what replaced it. Every string stays a text node (dom.ts).
 */
function observationItem(text: string, validity: FactValidity | undefined, tags: HTMLElement | undefined): HTMLElement {
  const status = validity?.status;
  if (!status) return el("li", { className: "observation" }, el("span", { className: "text" }, text), tags);
  const note = validity.supersededBy !== undefined ? `${status}, by: ${validity.supersededBy}` : status;
  return el(
    "li",
    { className: `observation ${status}` },
    el("s", { className: "text" }, text),
    el("span", { className: "muted status" }, ` (${note})`),
    tags,
  );
}

function tagList(tags: string[]): HTMLElement | undefined {
  if (tags.length === 0) return undefined;
  return el("span", { className: "tags" }, ...tags.map((tag) => el("span", { className: "tag" }, tag)));
}
