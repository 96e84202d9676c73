/**
 * A confirmation the user gave, about to be acted on (docs/confirmation.md). Its nonce comes from the sealed request
 * state the server minted when it asked; the rest says what it confirmed, for whoever reads the stored row.
 */
export interface UsedConfirmation {
  nonce: string;
  /** When the request state it came in stops verifying (ms since 1970): the record is useless after it. */
  expiresAtMs: number;
  tool: string;
  workspace: string;
  principal: string;
}

/**
 * Single use of confirmations, across every instance: a request state verifies on any instance (the key is shared), so
 * only a record in storage can tell that it was used already.
 */
export interface ConfirmationStore {
  /** Records the confirmation as used: true the first time, false when it was used before. One insert. */
  consume(confirmation: UsedConfirmation): Promise<boolean>;
}
