import { ValidationError } from "../model/errors.js";
import { CLOCK_SKEW_ALLOWANCE_MS } from "../model/limits.js";
import type { Entity, Relation, Validity } from "../model/model.js";
import { checkFactKeyText, parseTime } from "../model/validation.js";

/**
 * The two times (docs/history.md#two-times), as pure rules. Transaction time is what the memory held (`asOf`); valid time
 * is what was true (`validAt`). A read looks through a TimeLens: by default "true now, as held now".
 *
 * - **Expired** (`expiresAt` at or before the lens's transaction time, and not pinned): gone from every read, whatever
 *   the valid time asked, as if deleted at `expiresAt`; the sweep deletes it later (sweep_expired).
 * - **Superseded** (`supersededBy` set: now, always; at an explicit `validAt`, once its `validTo` is reached) or **ended**
 *   (`validTo` at or before the valid time asked): not true any more; shown only with `includeSuperseded`, marked.
 * - **Not yet valid** (`validFrom` after the valid time asked): shown only with `includeSuperseded`, marked.
 *
 * "Now" is fuzzy by the clock allowance. Times a write sets by default (validFrom of a replacement, validTo of an ending) are
 * its instance's clock, which may be up to CLOCK_SKEW_ALLOWANCE_MS ahead of the reader's; a reader must still see its
 * writes' effects at once, on any instance. So without an explicit `validAt`, valid time is judged at the transaction time
 * plus the allowance, and a fact with no `validFrom` of its own holds from the start. An explicit `validAt` is exact.
 */

export interface TimeLens {
  /** Transaction time (ms): what the memory held then. Expiry is judged at this time. */
  heldAt: number;
  /** Valid time (ms), when the read asked for one: what was true then. Otherwise the fact must be true at `heldAt`. */
  validAt?: number;
  /** Return superseded, ended and not-yet-valid facts too, marked with their status. Expired ones stay hidden. */
  includeSuperseded: boolean;
}

export type FactStatus = "current" | "superseded" | "ended" | "not-yet-valid" | "expired";

/** The lens of a read that asks nothing: true now, as held now. */
export const presentLens = (nowMs: number): TimeLens => ({ heldAt: nowMs, includeSuperseded: false });

/** The lens of a read's arguments (asOf and validAt as ISO 8601 times, checked here). */
export function lensOf(args: { asOf?: string; validAt?: string; includeSuperseded?: boolean }, nowMs: number): TimeLens {
  const heldAt = args.asOf === undefined ? nowMs : parseTime(args.asOf, "asOf");
  return {
    heldAt,
    ...(args.validAt !== undefined ? { validAt: parseTime(args.validAt, "validAt") } : {}),
    includeSuperseded: args.includeSuperseded ?? false,
  };
}

/** A validity patch (Validity) with its cleared fields ("" and `pinned: false`) left out: what is held after it. */
export function heldValidity(patch: Validity | undefined): Validity | undefined {
  if (!patch) return undefined;
  const held: Validity = {};
  if (patch.validFrom) held.validFrom = patch.validFrom;
  if (patch.validTo) held.validTo = patch.validTo;
  if (patch.supersededBy) held.supersededBy = patch.supersededBy;
  if (patch.expiresAt) held.expiresAt = patch.expiresAt;
  if (patch.pinned) held.pinned = true;
  return Object.keys(held).length > 0 ? held : undefined;
}

/** A held validity with a patch on top (Validity: "" and `pinned: false` clear a field). */
export function patchValidity(held: Validity | undefined, patch: Validity | undefined): Validity | undefined {
  if (!patch) return held;
  return heldValidity({ ...held, ...patch });
}

const timeOf = (text: string | undefined): number | undefined => {
  if (!text) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
};

/** Expired at the lens's transaction time: `expiresAt` passed and not pinned. */
export function isExpired(validity: Validity | undefined, heldAt: number): boolean {
  if (!validity?.expiresAt || validity.pinned) return false;
  const at = timeOf(validity.expiresAt);
  return at !== undefined && at <= heldAt;
}

/** A fact's status through the lens. */
export function statusOf(validity: Validity | undefined, lens: TimeLens): FactStatus {
  if (!validity) return "current";
  if (isExpired(validity, lens.heldAt)) return "expired";
  // Now, a superseded fact is superseded once its validTo is within the allowance (the writer's clock); at an explicit
  // valid time, it was true within its interval like any other.
  const at = lens.validAt ?? lens.heldAt + CLOCK_SKEW_ALLOWANCE_MS;
  const to = timeOf(validity.validTo);
  // A supersession dated ahead (beyond the allowance) has not taken effect: the old fact holds until its validTo.
  if (validity.supersededBy && lens.validAt === undefined && !(to !== undefined && to > at)) return "superseded";
  if (to !== undefined && to <= at) return validity.supersededBy ? "superseded" : "ended";
  const from = timeOf(validity.validFrom);
  if (from !== undefined && from > at) return "not-yet-valid";
  return "current";
}

/** Whether a fact shows through the lens: current, or any status but expired with `includeSuperseded`. */
export function shows(validity: Validity | undefined, lens: TimeLens): boolean {
  const status = statusOf(validity, lens);
  return status === "current" || (lens.includeSuperseded && status !== "expired");
}

/**
 * With `validAt`, an observation without a `validFrom` of its own is valid from when it was written: its validity with that
 * default filled in (see the header for why the default lens does not fill it).
 */
function withWrittenFrom(validity: Validity | undefined, createdAt: string | undefined, lens: TimeLens): Validity | undefined {
  if (lens.validAt === undefined || validity?.validFrom || !createdAt) return validity;
  return { ...validity, validFrom: createdAt };
}

/** An entity's own validity (expiry and pin). */
export const entityValidity = (entity: Pick<Entity, "expiresAt" | "pinned">): Validity | undefined =>
  heldValidity({ expiresAt: entity.expiresAt, pinned: entity.pinned });

/** A relation's validity. */
export const relationValidity = (relation: Pick<Relation, "validFrom" | "validTo" | "expiresAt" | "pinned">): Validity | undefined =>
  heldValidity({ validFrom: relation.validFrom, validTo: relation.validTo, expiresAt: relation.expiresAt, pinned: relation.pinned });

/** Whether the entity itself shows (an entity is only ever expired, never superseded). */
export const entityShows = (entity: Pick<Entity, "expiresAt" | "pinned">, lens: TimeLens): boolean =>
  !isExpired(entityValidity(entity), lens.heldAt);

/** Whether the relation shows, its endpoints aside. */
export const relationShows = (relation: Relation, lens: TimeLens): boolean =>
  shows(withWrittenFrom(relationValidity(relation), relation.createdAt, lens), lens);

/** The relation's status through the lens. */
export const relationStatus = (relation: Relation, lens: TimeLens): FactStatus =>
  statusOf(withWrittenFrom(relationValidity(relation), relation.createdAt, lens), lens);

/**
 * The entity as seen through the lens, or undefined when it does not show (expired). Its observations are those that show;
 * `observationValidity` keeps the entries of those. `observationCreatedAt` gives an observation's write time by content
 * where the reader knows it (for `validAt` without `validFrom`); without it the entity's own creation stands in.
 */
export function entityThroughLens(
  entity: Entity,
  lens: TimeLens,
  observationCreatedAt?: (content: string) => string | undefined,
): Entity | undefined {
  if (!entityShows(entity, lens)) return undefined;
  const validity = entity.observationValidity;
  if ((!validity || validity.size === 0) && lens.validAt === undefined) return entity;
  const observations = entity.observations.filter((content) =>
    shows(withWrittenFrom(validity?.get(content), observationCreatedAt?.(content) ?? entity.createdAt, lens), lens),
  );
  if (observations.length === entity.observations.length) return entity;
  const kept = new Set(observations);
  const keep = <T>(map: ReadonlyMap<string, T> | undefined) => map && new Map([...map].filter(([content]) => kept.has(content)));
  return {
    ...entity,
    observations,
    observationTags: keep(entity.observationTags)!,
    ...(validity ? { observationValidity: keep(validity) } : {}),
  };
}

/** A graph as seen through the lens: entities that show, and relations that show between entities that show. */
export function graphThroughLens<G extends { entities: Entity[]; relations: Relation[] }>(graph: G, lens: TimeLens): G {
  const entities = graph.entities.flatMap((entity) => entityThroughLens(entity, lens) ?? []);
  const shown = new Set(entities.map((entity) => entity.id));
  const hidden = new Set(graph.entities.filter((entity) => !shown.has(entity.id)).map((entity) => entity.id));
  const relations = graph.relations.filter(
    (relation) => !hidden.has(relation.fromEntityId) && !hidden.has(relation.toEntityId) && relationShows(relation, lens),
  );
  return { ...graph, entities, relations };
}

// ---- Input rules ---------------------------------------------------------------------------------------------------

/** What a write may set: valid time, and an expiry as a time or a time to live. */
export interface ValidityInput {
  validFrom?: string;
  validTo?: string;
  expiresAt?: string;
  /** Seconds from now; the alternative to `expiresAt`. */
  ttlSeconds?: number;
}

/** The longest time to live: ten years. */
const MAX_TTL_SECONDS = 10 * 365 * 24 * 60 * 60;

/**
 * Checks what a write sets (validTo after validFrom, an expiry in the future, one of expiresAt and ttlSeconds) and returns
 * it as a validity to store, times normalised to ISO 8601 (UTC, milliseconds). `where` names the argument in errors.
 */
export function checkValidityInput(input: ValidityInput, nowMs: number, where = ""): Validity | undefined {
  const field = (name: string) => (where ? `${where}.${name}` : name);
  const from = input.validFrom === undefined ? undefined : parseTime(input.validFrom, field("validFrom"));
  const to = input.validTo === undefined ? undefined : parseTime(input.validTo, field("validTo"));
  if (to !== undefined && to <= (from ?? nowMs)) {
    throw new ValidationError(
      `${field("validTo")} (${input.validTo}) must be after ${from !== undefined ? `${field("validFrom")} (${input.validFrom})` : "now, when validFrom is not given"}. Give a later validTo, or an earlier validFrom.`,
    );
  }
  if (input.expiresAt !== undefined && input.ttlSeconds !== undefined) {
    throw new ValidationError(`Give ${field("expiresAt")} or ${field("ttlSeconds")}, not both.`);
  }
  let expires: number | undefined;
  if (input.ttlSeconds !== undefined) {
    if (!Number.isInteger(input.ttlSeconds) || input.ttlSeconds < 1 || input.ttlSeconds > MAX_TTL_SECONDS) {
      throw new ValidationError(`${field("ttlSeconds")} must be a whole number of seconds from 1 to ${MAX_TTL_SECONDS} (ten years).`);
    }
    expires = nowMs + input.ttlSeconds * 1000;
  } else if (input.expiresAt !== undefined) {
    expires = parseTime(input.expiresAt, field("expiresAt"));
    if (expires <= nowMs) {
      throw new ValidationError(
        `${field("expiresAt")} (${input.expiresAt}) is not in the future. Give a later time, or delete the item instead of expiring it.`,
      );
    }
  }
  return heldValidity({
    ...(from !== undefined ? { validFrom: iso(from) } : {}),
    ...(to !== undefined ? { validTo: iso(to) } : {}),
    ...(expires !== undefined ? { expiresAt: iso(expires) } : {}),
  });
}

export const iso = (ms: number): string => new Date(ms).toISOString();

// ---- Fact keys -----------------------------------------------------------------------------------------------------

/** A fact key: a letter, then letters, digits, "_", "-" or "." (at most 64), compared without case. */
const FACT_KEY = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
/** An observation written as `key: value`. */
const FACT = /^\s*([A-Za-z][A-Za-z0-9_.-]{0,63})\s*:(.*)$/s;

/** A declared fact key (declare_fact_keys). */
export interface FactKey {
  key: string;
  singleValued: boolean;
}

/** The key of a fact key, as compared: lower case. */
export const factKeyName = (key: string): string => key.toLowerCase();

export function checkFactKey(key: string, where: string): string {
  checkFactKeyText(key, where);
  if (!FACT_KEY.test(key)) {
    throw new ValidationError(
      `${where} '${key.slice(0, 100)}' is not a fact key: start with a letter, then letters, digits, '_', '-' or '.', at most 64 characters (e.g. owner, status, lead).`,
    );
  }
  return key;
}

/** An observation's fact, when it is written `key: value` (the key lower-cased, the value trimmed). */
export function factOf(content: string): { key: string; value: string } | undefined {
  const match = FACT.exec(content);
  if (!match) return undefined;
  return { key: factKeyName(match[1]!), value: match[2]!.trim() };
}

/**
 * The fact of an observation on a single-valued key, checked: a malformed `key: value` (an empty value) is an error.
 * Undefined for an observation that does not name one of `singleValued` (lower-case keys).
 */
export function singleValuedFactOf(
  content: string,
  singleValued: ReadonlySet<string>,
  where: string,
): { key: string; value: string } | undefined {
  const fact = factOf(content);
  if (!fact || !singleValued.has(fact.key)) return undefined;
  if (fact.value === "") {
    throw new ValidationError(
      `${where} '${content.slice(0, 100)}' names the single-valued key '${fact.key}' without a value. Write it as '${fact.key}: <value>'.`,
    );
  }
  return fact;
}
