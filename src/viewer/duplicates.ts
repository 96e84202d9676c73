import { button, byId, el, fill } from "./dom.js";
import { mergeReport, namesMergedAway, previewText } from "./outcomes.js";
import type { DuplicateReview, DuplicateSide } from "./shapes.js";
import { api, say, showError, typeSwatch, view } from "./state.js";

/**
 * The duplicate review (docs/apps.md): review_duplicates' pairs side by side. A person picks which entity stays, previews
 * the merge (merge_entities dryRun), then confirms it (confirm: true), or rejects the pair (reject_duplicate_pair), which
 * is then never proposed again. Each is an ordinary tool call, recorded with the caller as principal.
 */

export function startDuplicates(review: DuplicateReview): void {
  view.tools = new Set(review.tools);
  document.body.dataset.app = "duplicates";
  byId("duplicates-screen").hidden = false;
  status(review);
  fill(
    byId("pairs"),
    review.pairs.map((pair, index) => pairItem(pair, index)),
    "No probable duplicates.",
  );
  document.body.dataset.state = "ready";
  performance.mark("viewer-interactive");
}

let rejectedBefore = 0;

function status(review: DuplicateReview): void {
  rejectedBefore = review.rejected;
  summarise(review.pairs.length);
}

function summarise(pairs: number): void {
  const rejected = rejectedBefore > 0 ? ` (${rejectedBefore} rejected pair${rejectedBefore === 1 ? "" : "s"} left out)` : "";
  byId("summary").textContent = `${pairs} probable duplicate pair${pairs === 1 ? "" : "s"}${rejected}`;
}

/** The pairs left after a merge or a rejection, in the header; an empty list says so. */
function recount(): void {
  const list = byId("pairs");
  const left = list.querySelectorAll("li.pair").length;
  summarise(left);
  if (left === 0) fill(list, [], "No probable duplicates left.");
}

function side(entity: DuplicateSide, which: "a" | "b", index: number): HTMLElement {
  const choice = el("input");
  choice.type = "radio";
  choice.name = `target-${index}`;
  choice.value = which;
  choice.checked = which === "a";
  return el(
    "div",
    { className: "side" },
    el("h3", {}, entity.name),
    el("p", {}, typeSwatch(entity.entityType), entity.entityType),
    el("label", { className: "keep" }, choice, " Keep this one"),
    el("h4", {}, `Observations (${entity.observations.length})`),
    el("ul", {}, ...entity.observations.map((text) => el("li", { className: "observation" }, text))),
    el("h4", {}, `Relations (${entity.relations.length})`),
    el(
      "ul",
      {},
      ...entity.relations.map((r) =>
        el("li", { className: "relation" }, `${r.from} `, el("span", { className: "muted" }, r.relationType), ` ${r.to}`),
      ),
    ),
  );
}

function pairItem(pair: DuplicateReview["pairs"][number], index: number): HTMLElement {
  const item = el(
    "li",
    { className: "pair", title: pair.reasons.join("; ") },
    el("p", { className: "muted" }, `Score ${pair.score.toFixed(2)}: ${pair.reasons.join("; ")}`),
    el("div", { className: "sides" }, side(pair.a, "a", index), side(pair.b, "b", index)),
  );
  item.dataset.a = pair.a.name;
  item.dataset.b = pair.b.name;
  const result = el("p", { className: "preview-result" });
  const actions = el("div", { className: "actions" });
  /** Which side stays, and the other, merged into it. */
  const chosen = () => {
    const keepA = (item.querySelector<HTMLInputElement>(`input[name="target-${index}"]:checked`)?.value ?? "a") === "a";
    return keepA ? { target: pair.a.name, source: pair.b.name } : { target: pair.b.name, source: pair.a.name };
  };
  // Write buttons only for the tools this caller may call (the server refuses the rest regardless).
  if (view.tools.has("merge_entities")) {
    const confirm = button(
      "Confirm merge",
      "confirm",
      () =>
        void run(confirm, async () => {
          const { target, source } = chosen();
          const answer = await api.call<unknown>("merge_entities", { target, sources: [source], confirm: true });
          mergeReport(answer, { target, source, dryRun: false });
          // The merged-away entity no longer exists: every pair naming it would fail, so they all leave with this one.
          item.remove();
          for (const other of byId("pairs").querySelectorAll<HTMLElement>("li.pair")) {
            if (namesMergedAway(other.dataset, source)) other.remove();
          }
          recount();
          say(`Merged ${source} into ${target}.`);
        }),
    );
    confirm.disabled = true;
    const preview = button(
      "Preview merge",
      "preview",
      () =>
        void run(preview, async () => {
          const { target, source } = chosen();
          const answer = await api.call<unknown>("merge_entities", { target, sources: [source], dryRun: true });
          const report = mergeReport(answer, { target, source, dryRun: true });
          result.textContent = previewText(report, source, target);
          confirm.disabled = false;
        }),
    );
    // A preview is for the side chosen when it ran: choosing the other side asks for a new one.
    item.addEventListener("change", () => {
      confirm.disabled = true;
      result.textContent = "";
    });
    actions.append(preview, confirm);
  }
  if (view.tools.has("reject_duplicate_pair")) {
    const reject = button(
      "Not duplicates",
      "reject",
      () =>
        void run(reject, async () => {
          const answer = await api.call<{ rejected?: unknown }>("reject_duplicate_pair", { a: pair.a.name, b: pair.b.name });
          // Only a rejection the server reports removes the pair: anything else leaves it, with an honest message.
          if (answer.rejected !== true)
            throw new Error("reject_duplicate_pair did not report the pair as rejected; it stays listed. Try again.");
          item.remove();
          recount();
          say(`${pair.a.name} and ${pair.b.name} will not be proposed again.`);
        }),
    );
    actions.append(reject);
  }
  item.append(actions, result);
  return item;
}

/** Runs one action with its button disabled meanwhile; its error goes to #error with the server's message. */
async function run(control: HTMLButtonElement, action: () => Promise<void>): Promise<void> {
  const wasDisabled = control.disabled;
  control.disabled = true;
  try {
    await action();
    control.disabled = wasDisabled;
  } catch (error) {
    control.disabled = wasDisabled;
    showError(error);
  }
}
