/** One entity as the corpus authors it: its observations in plain English, and the relations it starts. */
export interface AuthoredEntity {
  name: string;
  entityType: string;
  /** 1-5 plain-English observations. */
  observations: string[];
  /** Relations from this entity: [relationType, to's name]. */
  links?: [relationType: string, to: string][];
}

/** Shorthand for the authored lists: type, name, observations, then optional links. */
export function entity(entityType: string, name: string, observations: string[], links?: [string, string][]): AuthoredEntity {
  return links ? { name, entityType, observations, links } : { name, entityType, observations };
}
