/**
 * The checker's generator: a seeded PRNG and one argument generator per write tool. Names come from small pools, so calls
 * cross on the same entities, relations and tags (docs/reliability.md#the-consistency-checker). A new write tool must get a
 * generator here: test/consistency.test.ts fails, naming it, until it has one.
 */

/** A small seeded PRNG (mulberry32): the same seed gives the same sequence of choices. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** A number in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[Math.floor(this.next() * items.length)]!;
  }
  /** `count` distinct items (fewer if there are fewer). */
  some<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    while (out.length < count && pool.length > 0) out.push(pool.splice(Math.floor(this.next() * pool.length), 1)[0]!);
    return out;
  }
}

/** What a generator draws from: the seeded PRNG, the name pools, and what the run has written so far. */
export class GenState {
  readonly names: readonly string[];
  readonly types = ["person", "project"];
  readonly relationTypes = ["knows", "uses"];
  readonly tags = ["t1", "t2", "t3"];
  /** Times (ISO) between rounds, for restore_entity's asOf. */
  readonly pastTimes: string[] = [];
  /** Names a generated call may have deleted (delete_entities, a merge's sources): what restore_entity mostly picks. */
  readonly removed: string[] = [];
  private readonly contents = new Map<string, string[]>();
  private counter = 0;

  constructor(
    readonly rng: Rng,
    readonly workspace: string,
    entityCount = 5,
  ) {
    this.names = Array.from({ length: entityCount }, (_, i) => String.fromCharCode(65 + i));
  }

  name(): string {
    return this.rng.pick(this.names);
  }
  /**
   * A new observation text for `name`, never generated before in this run (so a lost one is recognised wherever it is).
   * Some are facts on the key "status", which declare_fact_keys may make single-valued (docs/history.md#single-valued-facts).
   */
  fresh(name: string): string {
    const id = `${name}-o${++this.counter}`;
    const content = this.rng.chance(0.15) ? `status: ${id}` : id;
    this.contents.set(name, [...(this.contents.get(name) ?? []), content]);
    return content;
  }
  /** An observation text generated for `name` before (it may have been moved or deleted since), or a fresh one. */
  known(name: string): string {
    const known = this.contents.get(name) ?? [];
    return known.length > 0 && this.rng.chance(0.85) ? this.rng.pick(known) : this.fresh(name);
  }
  freshMany(name: string, max: number): string[] {
    return Array.from({ length: this.rng.int(0, max) }, () => this.fresh(name));
  }
  relation(): { from: string; to: string; relationType: string } {
    return { from: this.name(), to: this.name(), relationType: this.rng.pick(this.relationTypes) };
  }
  /** `name`, noted as one a call may delete. */
  removing(name: string): string {
    this.removed.push(name);
    return name;
  }
  metadata(): Record<string, unknown> {
    return { v: this.rng.int(0, 99) };
  }
  /** An expiry a day ahead (so no view's answer depends on when it is read), or none. */
  expiry(): string | null {
    return this.rng.chance(0.6) ? new Date(Date.now() + 24 * 60 * 60 * 1000 + this.rng.int(0, 999)).toISOString() : null;
  }
}

/** A write tool's arguments (without workspaceName, which the runner adds). */
export type Generator = (g: GenState) => Record<string, unknown>;

/** The execute_batch operations: each is its tool's arguments. */
const BATCH_OPS = ["upsert_entity", "add_observations", "upsert_relation", "delete_entities", "delete_relations", "delete_observations"];

/** One generator per write tool (every tool whose readOnlyHint is not true), keyed by tool name. */
export const WRITE_GENERATORS: Readonly<Record<string, Generator>> = {
  upsert_entity: (g) => {
    const name = g.name();
    return {
      name,
      entityType: g.rng.pick(g.types),
      observations: g.freshMany(name, 3),
      ...(g.rng.chance(0.5) ? { metadata: g.metadata() } : {}),
    };
  },
  create_entities: (g) => ({
    entities: g.rng.some(g.names, g.rng.int(1, 2)).map((name) => ({
      name,
      entityType: g.rng.pick(g.types),
      observations: g.freshMany(name, 2),
    })),
  }),
  add_observations: (g) => ({
    observations: g.rng.some(g.names, g.rng.int(1, 2)).map((entityName) => ({
      entityName,
      contents: Array.from({ length: g.rng.int(1, 4) }, () => g.fresh(entityName)),
    })),
  }),
  delete_observations: (g) => {
    const entityName = g.name();
    return { deletions: [{ entityName, observations: [g.known(entityName)] }] };
  },
  delete_entities: (g) => ({ entityNames: [g.removing(g.name())] }),
  upsert_relation: (g) => ({ ...g.relation(), ...(g.rng.chance(0.7) ? { metadata: g.metadata() } : {}) }),
  create_relations: (g) => ({ relations: Array.from({ length: g.rng.int(1, 2) }, () => g.relation()) }),
  delete_relations: (g) => ({ relations: [g.relation()] }),
  tag_entity: (g) => ({ entityName: g.name(), tagNames: g.rng.some(g.tags, g.rng.int(1, 2)) }),
  remove_tags_from_entity: (g) => ({ entityName: g.name(), tagNames: [g.rng.pick(g.tags)] }),
  tag_observation: (g) => {
    const entityName = g.name();
    return { entityName, observationContent: g.known(entityName), tagNames: [g.rng.pick(g.tags)] };
  },
  untag_observation: (g) => {
    const entityName = g.name();
    return { entityName, observationContent: g.known(entityName), tagNames: [g.rng.pick(g.tags)] };
  },
  define_tag: (g) => ({ name: g.rng.pick(g.tags), category: g.rng.pick(["a", "b"]), description: `d${g.rng.int(0, 9)}` }),
  delete_tags: (g) => ({ tagNames: [g.rng.pick(g.tags)] }),
  merge_entities: (g) => {
    const [target, ...sources] = g.rng.some(g.names, g.rng.int(2, 3));
    return { target, sources: sources.map((name) => g.removing(name)), confirm: true };
  },
  restore_entity: (g) => {
    const asOf = g.pastTimes.length > 0 && g.rng.chance(0.4) ? g.rng.pick(g.pastTimes) : undefined;
    return {
      entityName: g.removed.length > 0 && g.rng.chance(0.8) ? g.rng.pick(g.removed) : g.name(),
      // Sometimes a roll back of an entity that exists (docs/history.md#supersede-not-delete).
      ...(asOf !== undefined ? { asOf, ...(g.rng.chance(0.5) ? { rollBack: true } : {}) } : {}),
    };
  },
  execute_batch: (g) => ({
    operations: Array.from({ length: g.rng.int(1, 4) }, () => {
      const op = g.rng.pick(BATCH_OPS);
      return { op, args: WRITE_GENERATORS[op]!(g) };
    }),
    atomic: g.rng.chance(0.5),
  }),
  delete_workspace: (g) => ({ confirm: g.workspace }),
  supersede_observation: (g) => {
    const entityName = g.name();
    return { entityName, observation: g.known(entityName), replacement: g.fresh(entityName) };
  },
  end_relation: (g) => g.relation(),
  set_expiry: (g) => {
    const entityName = g.name();
    const target = g.rng.int(0, 2);
    return {
      entityName,
      ...(target === 1 ? { observation: g.known(entityName) } : {}),
      ...(target === 2 ? { relation: { to: g.name(), relationType: g.rng.pick(g.relationTypes) } } : {}),
      expiresAt: g.expiry(),
      ...(g.rng.chance(0.4) ? { pinned: g.rng.chance(0.5) } : {}),
    };
  },
  declare_fact_keys: (g) => ({ keys: [{ key: "status", singleValued: g.rng.chance(0.7) }] }),
  sweep_expired: (g) => ({ dryRun: g.rng.chance(0.5) }),
  reject_duplicate_pair: (g) => {
    const [a, b] = g.rng.some(g.names, 2) as [string, string];
    return { a, b, ...(g.rng.chance(0.3) ? { undo: true } : {}) };
  },
};

/** How often each write tool is drawn in a random round (relative weights; delete_workspace is rare on purpose). */
const WRITE_WEIGHTS: Readonly<Record<string, number>> = {
  upsert_entity: 8,
  create_entities: 2,
  add_observations: 6,
  delete_observations: 3,
  delete_entities: 2,
  upsert_relation: 8,
  create_relations: 2,
  delete_relations: 4,
  tag_entity: 3,
  remove_tags_from_entity: 2,
  tag_observation: 3,
  untag_observation: 2,
  define_tag: 2,
  delete_tags: 1,
  merge_entities: 3,
  restore_entity: 2,
  execute_batch: 3,
  delete_workspace: 1,
  supersede_observation: 3,
  end_relation: 2,
  set_expiry: 2,
  declare_fact_keys: 1,
  sweep_expired: 1,
  reject_duplicate_pair: 1,
};

/** Reads issued between the writes, so each instance's index is built early and then brought current by the feed. */
export const READ_GENERATORS: Readonly<Record<string, Generator>> = {
  read_graph: () => ({}),
  search_entities: (g) => ({ query: g.name() }),
  get_stats: () => ({}),
  search_relations: () => ({}),
  get_all_tags: () => ({}),
};

/** A write tool drawn by weight; `without` leaves some out (e.g. delete_workspace in runs that test other races). */
export function drawTool(rng: Rng, without: ReadonlySet<string> = new Set()): string {
  const entries = Object.entries(WRITE_WEIGHTS).filter(([tool]) => !without.has(tool));
  let x = rng.next() * entries.reduce((sum, [, w]) => sum + w, 0);
  for (const [tool, weight] of entries) {
    x -= weight;
    if (x < 0) return tool;
  }
  return entries.at(-1)![0];
}
