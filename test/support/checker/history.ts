import { type NGraph, pairLabel, relationLabel } from "./model.js";

/**
 * The checker's history and its lost-write rule. Every call is recorded (tool, arguments, answer, start and end time,
 * instance). An acknowledged write makes claims (this entity, observation, relation, tag… exists); any call, answered or
 * not, that could have undone a claim and did not end before the claim's call started excuses it. Every other claim must
 * hold in storage at the end.
 */

/** One call as the history records it. `ok` is false for an error result (the call may still have written part). */
export interface Call {
  id: number;
  instance: string;
  tool: string;
  args: Record<string, unknown>;
  ok: boolean;
  answer: unknown;
  start: number;
  end: number;
}

type Json = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === "string" ? v : "");
const arr = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(str) : []);

/** What an acknowledged write says exists afterwards. */
type Claim =
  | { kind: "entity"; name: string }
  | { kind: "observation"; name: string; content: string }
  | { kind: "relation"; from: string; to: string; relationType: string }
  | { kind: "entity-tag"; name: string; tag: string }
  | { kind: "observation-tag"; name: string; content: string; tag: string }
  | { kind: "tag"; tag: string }
  | { kind: "rejection"; pair: string };

/** What a call may have undone. A merge moves what hangs off a source onto its target. */
type Threat =
  | { kind: "delete-entity"; name: string }
  | { kind: "merge"; source: string; target: string }
  | { kind: "delete-observation"; name: string; content: string }
  | { kind: "delete-relation"; label: string }
  | { kind: "remove-entity-tag"; name: string; tag: string }
  | { kind: "untag-observation"; name: string; content: string; tag: string }
  | { kind: "delete-tag"; tag: string }
  | { kind: "delete-workspace" }
  | { kind: "restore"; name: string }
  | { kind: "forget-rejection"; pair: string };

/** The claims of one operation (a tool call, or one operation of a batch) that succeeded. */
function claimsOf(tool: string, args: Json, answer: Json): Claim[] {
  const entity = (name: unknown, observations: unknown): Claim[] => [
    { kind: "entity", name: str(name) },
    ...strings(observations).map((content): Claim => ({ kind: "observation", name: str(name), content })),
  ];
  switch (tool) {
    case "upsert_entity":
      return entity(args.name, args.observations);
    case "create_entities": {
      // Names that existed are left as they were (official semantics): only the ones the answer lists got their observations.
      const created = new Set(arr(answer.entities).map((e) => str(e.name)));
      return arr(args.entities).flatMap((e) => entity(e.name, created.has(str(e.name)) ? e.observations : []));
    }
    case "add_observations":
      return arr(args.observations).flatMap((o) => entity(o.entityName, o.contents));
    case "upsert_relation":
      return [{ kind: "relation", from: str(args.from), to: str(args.to), relationType: str(args.relationType) }];
    case "create_relations":
      return arr(args.relations).map((r) => ({ kind: "relation", from: str(r.from), to: str(r.to), relationType: str(r.relationType) }));
    case "tag_entity":
      return strings(args.tagNames).flatMap((tag): Claim[] => [
        { kind: "entity-tag", name: str(args.entityName), tag },
        { kind: "tag", tag },
      ]);
    case "tag_observation":
      return strings(args.tagNames).flatMap((tag): Claim[] => [
        { kind: "observation-tag", name: str(args.entityName), content: str(args.observationContent), tag },
        { kind: "tag", tag },
      ]);
    case "define_tag":
      return [{ kind: "tag", tag: str(args.name) }];
    case "restore_entity":
      return [{ kind: "entity", name: str(args.entityName) }];
    case "reject_duplicate_pair":
      // Its row stays when an entity goes (docs/curate.md#rejecting-a-pair): only an undo or delete_workspace removes it.
      return args.undo === true ? [] : [{ kind: "rejection", pair: pairLabel(str(args.a), str(args.b)) }];
    case "supersede_observation":
      // The superseded observation stays (marked), so only the replacement is new.
      return entity(args.entityName, [args.replacement]);
    case "execute_batch": {
      const ops = arr(args.operations);
      return arr(answer.results).flatMap((r) => {
        const op = ops[Number(r.index)];
        return r.success === true && op ? claimsOf(str(op.op), (op.args as Json) ?? {}, r) : [];
      });
    }
    default:
      return [];
  }
}

/** What one call (answered or not) may have undone. */
function threatsOf(tool: string, args: Json): Threat[] {
  switch (tool) {
    case "delete_entities":
      return strings(args.entityNames).map((name) => ({ kind: "delete-entity", name }));
    case "delete_observations":
      return arr(args.deletions).flatMap((d) =>
        strings(d.observations).map((content): Threat => ({ kind: "delete-observation", name: str(d.entityName), content })),
      );
    case "delete_relations":
      return arr(args.relations).map((r) => ({
        kind: "delete-relation",
        label: relationLabel({ from: str(r.from), to: str(r.to), relationType: str(r.relationType) }),
      }));
    case "merge_entities":
      return strings(args.sources).map((source) => ({ kind: "merge", source, target: str(args.target) }));
    case "remove_tags_from_entity":
      return strings(args.tagNames).map((tag) => ({ kind: "remove-entity-tag", name: str(args.entityName), tag }));
    case "untag_observation":
      return strings(args.tagNames).map((tag) => ({
        kind: "untag-observation",
        name: str(args.entityName),
        content: str(args.observationContent),
        tag,
      }));
    case "delete_tags":
      return strings(args.tagNames).map((tag) => ({ kind: "delete-tag", tag }));
    case "delete_workspace":
      return [{ kind: "delete-workspace" }];
    case "restore_entity":
      return [{ kind: "restore", name: str(args.entityName) }];
    case "reject_duplicate_pair":
      return args.undo === true ? [{ kind: "forget-rejection", pair: pairLabel(str(args.a), str(args.b)) }] : [];
    case "execute_batch":
      return arr(args.operations).flatMap((op) => threatsOf(str(op.op), (op.args as Json) ?? {}));
    default:
      return [];
  }
}

/**
 * The entities what hung off `name` may be on: itself, every target a concurrent or later merge may have moved it to, and
 * every entity a concurrent or later restore_entity brought back (a restore of a merged-away source may move its rows back).
 */
function holders(name: string, threats: readonly Threat[]): Set<string> {
  const found = new Set([name, ...threats.flatMap((t) => (t.kind === "restore" ? [t.name] : []))]);
  for (let grew = true; grew;) {
    grew = false;
    for (const t of threats) {
      if (t.kind === "merge" && found.has(t.source) && !found.has(t.target)) {
        found.add(t.target);
        grew = true;
      }
    }
  }
  return found;
}

/** Whether one of `threats` may have undone `claim` (so its absence is allowed). */
function excused(claim: Claim, threats: readonly Threat[]): boolean {
  const has = (test: (t: Threat) => boolean) => threats.some(test);
  if (has((t) => t.kind === "delete-workspace")) return true;
  const gone = (name: string) => has((t) => (t.kind === "delete-entity" && t.name === name) || (t.kind === "merge" && t.source === name));
  switch (claim.kind) {
    case "entity":
      return gone(claim.name);
    case "relation":
      return gone(claim.from) || gone(claim.to) || has((t) => t.kind === "delete-relation" && t.label === relationLabel(claim));
    case "entity-tag":
      return (
        gone(claim.name) ||
        has(
          (t) =>
            (t.kind === "remove-entity-tag" && t.name === claim.name && t.tag === claim.tag) ||
            (t.kind === "delete-tag" && t.tag === claim.tag),
        )
      );
    case "tag":
      return has((t) => t.kind === "delete-tag" && t.tag === claim.tag);
    case "rejection":
      return has((t) => t.kind === "forget-rejection" && t.pair === claim.pair);
    case "observation":
    case "observation-tag": {
      const on = holders(claim.name, threats);
      const tag = claim.kind === "observation-tag" ? claim.tag : undefined;
      return has(
        (t) =>
          (t.kind === "delete-entity" && on.has(t.name)) ||
          // Restoring an entity that exists deletes the observations written after the time it restores.
          (t.kind === "restore" &&
            (t.name === claim.name || threats.some((m) => m.kind === "merge" && m.source === claim.name && m.target === t.name))) ||
          (t.kind === "delete-observation" && on.has(t.name) && t.content === claim.content) ||
          (tag !== undefined && t.kind === "delete-tag" && t.tag === tag) ||
          (tag !== undefined && t.kind === "untag-observation" && on.has(t.name) && t.content === claim.content && t.tag === tag),
      );
    }
  }
}

/** Whether `claim` holds in the stored graph (an observation and its tags may be on any entity a merge moved them to). */
function holds(claim: Claim, graph: NGraph, threats: readonly Threat[]): boolean {
  switch (claim.kind) {
    case "entity":
      return graph.entities.has(claim.name);
    case "relation":
      return graph.relations.has(relationLabel(claim));
    case "entity-tag":
      return graph.entities.get(claim.name)?.tags.includes(claim.tag) ?? false;
    case "tag":
      return graph.tags.has(claim.tag);
    case "rejection":
      return graph.rejections?.has(claim.pair) ?? false;
    case "observation":
    case "observation-tag":
      return [...holders(claim.name, threats)].some((name) => {
        const e = graph.entities.get(name);
        if (!e?.observations.includes(claim.content)) return false;
        return claim.kind === "observation" || (e.observationTags[claim.content] ?? []).includes(claim.tag);
      });
  }
}

const describe = (claim: Claim): string => {
  const { kind: _kind, ...rest } = claim;
  return Object.values(rest).join(" ");
};

/** Every acknowledged write the stored graph lost, one line per call and kind of claim, with the call that acknowledged it. */
export function lostWrites(history: readonly Call[], graph: NGraph): string[] {
  const lines: string[] = [];
  for (const call of history) {
    if (!call.ok) continue;
    // Calls that had not ended when this one started may have run after it (or alongside it).
    const threats = history.filter((other) => other.end >= call.start).flatMap((other) => threatsOf(other.tool, other.args));
    const claims = claimsOf(call.tool, call.args, (call.answer as Json) ?? {});
    const lost = claims.filter((claim) => !excused(claim, threats) && !holds(claim, graph, threats));
    for (const kind of new Set(lost.map((claim) => claim.kind))) {
      const some = lost.filter((claim) => claim.kind === kind);
      const of = claims.filter((claim) => claim.kind === kind).length;
      const shown = some.slice(0, 3).map(describe).join("; ");
      lines.push(
        `lost ${some.length} of ${of} ${kind} claims acknowledged by #${call.id} ${call.tool} on ${call.instance}: ${shown}${some.length > 3 ? "; …" : ""}`,
      );
    }
  }
  return lines;
}
