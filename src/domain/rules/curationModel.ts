/** What merge_entities reports (docs/curate.md#merge_entities): what moved onto the target, and what was dropped. */
export interface MergeReport {
  target: { id: string; name: string };
  sources: { id: string; name: string }[];
  observations: { moved: number; droppedDuplicates: number };
  relations: {
    moved: RelationLabel[];
    droppedSelfLoops: RelationLabel[];
    droppedDuplicates: RelationLabel[];
  };
  tags: { moved: number; droppedDuplicates: number };
  /** Sources not there any more because an earlier merge into this target completed them (a rerun). */
  alreadyMerged: string[];
}

/** A relation as a person reads it: from, type, to (names after the merge for moved ones). */
export interface RelationLabel {
  from: string;
  relationType: string;
  to: string;
}
