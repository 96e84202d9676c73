/**
 * A fixed corpus for duplicate detection (docs/curate.md#detect_duplicate_entities): entities with
 * known duplicate pairs and known look-alikes that are not duplicates, plus unrelated filler.
 */
export interface CorpusEntity {
  name: string;
  entityType: string;
  observations: string[];
}

const person = (name: string, observations: string[] = []): CorpusEntity => ({ name, entityType: "person", observations });
const org = (name: string, observations: string[] = []): CorpusEntity => ({ name, entityType: "organization", observations });

export const CORPUS: CorpusEntity[] = [
  person("Alice Smith", ["works on the billing service"]),
  person("alice_smith"),
  person("A. Smith"),
  person("Bartholomew Quinn"),
  person("quinn bartholomew"),
  person("José García"),
  person("Jose Garcia"),
  person("Jonathan Reyes"),
  person("Jonathon Reyes"),
  org("Acme Corporation"),
  org("Acme Corp"),
  { name: "DataPipeline", entityType: "project", observations: [] },
  { name: "data-pipeline", entityType: "project", observations: [] },
  person("Robert Jones", ["lives in Leeds", "plays the cello", "maintains the payroll system"]),
  person("Bob Jones", ["Lives in Leeds.", "plays the cello", "maintains the payroll system"]),
  person("Emily Chen"),
  person("Dr. Emily Chen"),
  // Look-alikes that are different things.
  person("John Smith"),
  person("Jane Smith"),
  { name: "Project Apollo", entityType: "project", observations: [] },
  { name: "Project Artemis", entityType: "project", observations: [] },
  org("Apex Corporation"),
  { name: "Paris", entityType: "city", observations: [] },
  { name: "Parish", entityType: "concept", observations: [] },
  person("Mark Evans"),
  person("Mark Owens"),
  org("Alice Smith Foundation"),
  // Filler: distinct names, some sharing words with the above.
  ...[
    "Grace Hopper",
    "Alan Turing",
    "Ada Lovelace",
    "Linus Torvalds",
    "Margaret Hamilton",
    "Donald Knuth",
    "Barbara Liskov",
    "Ken Thompson",
    "Dennis Ritchie",
    "Tim Berners-Lee",
    "Frances Allen",
    "Edsger Dijkstra",
    "Leslie Lamport",
    "Radia Perlman",
    "Vint Cerf",
  ].map((name) => person(name)),
  ...["Billing Service", "Payroll System", "Search Index", "Auth Gateway", "Event Feed", "Viewer Page", "Tag Store"].map((name) => ({
    name,
    entityType: "component",
    observations: [],
  })),
  ...["Leeds", "Oslo", "Lisbon", "Nairobi", "Osaka", "Quito", "Tallinn", "Hobart", "Perth", "Accra", "Porto"].map((name) => ({
    name,
    entityType: "city",
    observations: [],
  })),
];

/** Relations: Robert and Bob Jones share their neighbours. */
export const CORPUS_RELATIONS = [
  { from: "Robert Jones", to: "Payroll System", relationType: "maintains" },
  { from: "Bob Jones", to: "Payroll System", relationType: "maintains" },
  { from: "Robert Jones", to: "Leeds", relationType: "lives_in" },
  { from: "Bob Jones", to: "Leeds", relationType: "lives_in" },
  { from: "Alice Smith", to: "Billing Service", relationType: "works_on" },
];

const key = (a: string, b: string) => [a, b].sort().join(" | ");

export const KNOWN_DUPLICATES = [
  ["Alice Smith", "alice_smith"],
  ["Alice Smith", "A. Smith"],
  ["alice_smith", "A. Smith"],
  ["Bartholomew Quinn", "quinn bartholomew"],
  ["José García", "Jose Garcia"],
  ["Jonathan Reyes", "Jonathon Reyes"],
  ["Acme Corporation", "Acme Corp"],
  ["DataPipeline", "data-pipeline"],
  ["Robert Jones", "Bob Jones"],
  ["Emily Chen", "Dr. Emily Chen"],
].map(([a, b]) => key(a!, b!));

export const KNOWN_DIFFERENT = [
  ["John Smith", "Jane Smith"],
  ["John Smith", "Alice Smith"],
  ["John Smith", "A. Smith"],
  ["Project Apollo", "Project Artemis"],
  ["Acme Corporation", "Apex Corporation"],
  ["Acme Corp", "Apex Corporation"],
  ["Paris", "Parish"],
  ["Mark Evans", "Mark Owens"],
  ["Alice Smith", "Alice Smith Foundation"],
  ["Robert Jones", "Leeds"],
].map(([a, b]) => key(a!, b!));

export const pairKey = key;
