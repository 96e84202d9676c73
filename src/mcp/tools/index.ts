import type { AnyTool } from "../tool.js";
import { addObservations } from "./addObservations.js";
import { appEntityDetails } from "./appEntityDetails.js";
import { appExpand } from "./appExpand.js";
import { appFilter } from "./appFilter.js";
import { createEntities } from "./createEntities.js";
import { createRelations } from "./createRelations.js";
import { declareFactKeys } from "./declareFactKeys.js";
import { defineTag } from "./defineTag.js";
import { deleteEntities } from "./deleteEntities.js";
import { deleteObservations } from "./deleteObservations.js";
import { deleteRelations } from "./deleteRelations.js";
import { deleteTags } from "./deleteTags.js";
import { deleteWorkspace } from "./deleteWorkspace.js";
import { detectDuplicateEntities } from "./detectDuplicateEntities.js";
import { endRelation } from "./endRelation.js";
import { executeBatch } from "./executeBatch.js";
import { findPath } from "./findPath.js";
import { getAllTags } from "./getAllTags.js";
import { getChanges } from "./getChanges.js";
import { getContext } from "./getContext.js";
import { getEntitiesByTag } from "./getEntitiesByTag.js";
import { getEntityHistory } from "./getEntityHistory.js";
import { getEntityRelations } from "./getEntityRelations.js";
import { getNeighbors } from "./getNeighbors.js";
import { getStats } from "./getStats.js";
import { getTagUsage } from "./getTagUsage.js";
import { listConflicts } from "./listConflicts.js";
import { listWorkspaces } from "./listWorkspaces.js";
import { mergeEntities } from "./mergeEntities.js";
import { openNodes } from "./openNodes.js";
import { readGraph } from "./readGraph.js";
import { rejectDuplicatePair } from "./rejectDuplicatePair.js";
import { removeTagsFromEntity } from "./removeTagsFromEntity.js";
import { restoreEntity } from "./restoreEntity.js";
import { reviewDuplicates } from "./reviewDuplicates.js";
import { searchEntities } from "./searchEntities.js";
import { searchNodes } from "./searchNodes.js";
import { searchRelations } from "./searchRelations.js";
import { setExpiry } from "./setExpiry.js";
import { showEntityTimeline } from "./showEntityTimeline.js";
import { showMemoryGraph } from "./showMemoryGraph.js";
import { supersedeObservation } from "./supersedeObservation.js";
import { sweepExpired } from "./sweepExpired.js";
import { tagEntity } from "./tagEntity.js";
import { tagObservation } from "./tagObservation.js";
import { untagObservation } from "./untagObservation.js";
import { upsertEntity } from "./upsertEntity.js";
import { upsertRelation } from "./upsertRelation.js";

/** Every tool, in the order tools/list shows them. Add a tool: write its module, list it here. */
export const ALL_TOOLS: readonly AnyTool[] = [
  // core: the Central-Memory API
  upsertEntity,
  upsertRelation,
  getEntityRelations,
  readGraph, // in graph too: the official server's tool set is complete without core
  // graph: the official memory server's tools
  createEntities,
  createRelations,
  addObservations,
  deleteEntities,
  deleteObservations,
  deleteRelations,
  searchNodes,
  openNodes,
  // tags: on entities and observations
  tagEntity,
  tagObservation,
  untagObservation,
  removeTagsFromEntity,
  getEntitiesByTag,
  getAllTags,
  defineTag,
  getTagUsage,
  deleteTags,
  // history: the change feed
  getChanges,
  getEntityHistory,
  restoreEntity,
  supersedeObservation,
  endRelation,
  declareFactKeys,
  setExpiry,
  listConflicts,
  // search: ranked search and stats from the workspace index
  searchEntities,
  searchRelations,
  getStats,
  getContext,
  // navigate: neighbourhoods and paths
  getNeighbors,
  findPath,
  // admin: workspaces
  listWorkspaces,
  deleteWorkspace,
  sweepExpired,
  // curate: batches, duplicates and merges
  executeBatch,
  detectDuplicateEntities,
  mergeEntities,
  rejectDuplicatePair,
  // apps: the MCP Apps (docs/apps.md) and the app-only tools they read through
  showMemoryGraph,
  reviewDuplicates,
  showEntityTimeline,
  appExpand,
  appFilter,
  appEntityDetails,
];
