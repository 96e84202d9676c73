/**
 * The judged corpus of `npm run bench:recall` (docs/search.md): an online grocery delivery company's engineering memory as a
 * team's agents would keep it (people, teams, services, databases, incidents, decisions, projects, customers, vendors and
 * runbooks, with the relations between them), and the queries an agent asks of it with judged answers. Written for the
 * project by hand, not tuned to any model; test/recallCorpus.test.ts checks its counts and the paraphrase property.
 */
import { CUSTOMERS } from "./corpus/customers.js";
import { DECISIONS } from "./corpus/decisions.js";
import { INCIDENTS } from "./corpus/incidents.js";
import { PEOPLE } from "./corpus/people.js";
import { PROJECTS } from "./corpus/projects.js";
import { KEYWORD_QUERIES, PARAPHRASE_QUERIES } from "./corpus/queries.js";
import { RUNBOOKS } from "./corpus/runbooks.js";
import { DATABASES, SERVICES } from "./corpus/systems.js";
import { TEAMS } from "./corpus/teams.js";
import { type AuthoredEntity } from "./corpus/types.js";
import { VENDORS } from "./corpus/vendors.js";

export type { JudgedQuery, QueryKind } from "./corpus/queries.js";

/** An entity as create_entities takes it. */
export interface CorpusEntity {
  name: string;
  entityType: string;
  observations: string[];
}

/** A relation as create_relations takes it. */
export interface CorpusRelation {
  from: string;
  to: string;
  relationType: string;
}

const AUTHORED: AuthoredEntity[] = [
  ...TEAMS,
  ...PEOPLE,
  ...SERVICES,
  ...DATABASES,
  ...INCIDENTS,
  ...DECISIONS,
  ...PROJECTS,
  ...CUSTOMERS,
  ...VENDORS,
  ...RUNBOOKS,
];

export const CORPUS_ENTITIES: CorpusEntity[] = AUTHORED.map(({ name, entityType, observations }) => ({ name, entityType, observations }));

export const CORPUS_RELATIONS: CorpusRelation[] = AUTHORED.flatMap(({ name, links }) =>
  (links ?? []).map(([relationType, to]) => ({ from: name, to, relationType })),
);

export const CORPUS_QUERIES = [...PARAPHRASE_QUERIES, ...KEYWORD_QUERIES];
