import type { ConfirmationStore, UsedConfirmation } from "../../domain/ports/confirmationStore.js";
import { CONFIRMATION_PARTITION, confirmationKey, expiredConfirmations } from "../rows/keys.js";
import { rangeFilter, type TableGateway } from "../table/gateway.js";
import { classifyStorageError, toMemoryError } from "../table/storageErrors.js";

/** How often an instance clears expired records, and how many at most each time (one transaction). */
const PRUNE_INTERVAL_MS = 60 * 60_000;
const PRUNE_ROWS = 100;

/**
 * Used confirmations as rows of their own partition (rows/keys.ts CONFIRMATION_PARTITION): a create that must not find the
 * row, so two instances given the same confirmed retry at once cannot both act on it (the second create answers 409).
 */
export class TableConfirmationStore implements ConfirmationStore {
  /** Counted from construction, so a short-lived instance never pays for pruning. */
  private prunedAt: number;

  constructor(private readonly gateway: TableGateway) {
    this.prunedAt = gateway.clock();
  }

  async consume(confirmation: UsedConfirmation): Promise<boolean> {
    try {
      await this.gateway.createRow({
        partitionKey: CONFIRMATION_PARTITION,
        rowKey: confirmationKey(confirmation.expiresAtMs, confirmation.nonce),
        kind: "confirmation",
        expiresAt: new Date(confirmation.expiresAtMs).toISOString(),
        usedAt: new Date(this.gateway.clock()).toISOString(),
        tool: confirmation.tool,
        workspace: confirmation.workspace,
        principal: confirmation.principal,
      });
    } catch (error) {
      if (classifyStorageError(error) === "entity-exists") return false;
      throw toMemoryError(error);
    }
    await this.pruneIfDue();
    return true;
  }

  /**
   * A record is worth keeping only while its request state verifies; after that the state is refused as expired anyway.
   * At most once an hour per instance, one confirmed call also deletes up to 100 expired records (one query, one
   * transaction). Best effort: a failure here must not fail the call that was just confirmed.
   */
  private async pruneIfDue(): Promise<void> {
    const now = this.gateway.clock();
    if (now - this.prunedAt < PRUNE_INTERVAL_MS) return;
    this.prunedAt = now;
    try {
      const filter = rangeFilter(CONFIRMATION_PARTITION, expiredConfirmations(now));
      for await (const page of this.gateway.pages(filter, ["RowKey"], PRUNE_ROWS)) {
        const deletes = page.map((row) => ["delete", { partitionKey: CONFIRMATION_PARTITION, rowKey: String(row.rowKey) }] as const);
        await this.gateway.transact(deletes.map(([kind, row]) => [kind, row]));
        break; // one page per prune
      }
    } catch {
      // The next due prune tries again; the rows are small and harmless meanwhile.
    }
  }
}
