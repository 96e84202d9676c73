import { ValidationError } from "./errors.js";
import { LIMITS } from "./limits.js";

/**
 * maxChars budgets (docs/navigate.md#budgets): a read that can return a lot stops at whole items
 * (entities) so that the text it returns is at most `maxChars` characters, and says how to continue.
 * Pure: the caller says how to build the answer holding the first `count` items and how to render
 * it; this finds the largest count that fits. It applies to any list the answer is built from.
 */

/** A budget is a whole number of characters from 1 to LIMITS.maxChars. */
export function checkMaxChars(maxChars: number, where = "maxChars"): void {
  if (!Number.isInteger(maxChars) || maxChars < 1 || maxChars > LIMITS.maxChars) {
    throw new ValidationError(
      `${where} must be a whole number from 1 to ${LIMITS.maxChars} (characters of the answer's JSON text); got ${maxChars}.`,
    );
  }
}

export interface Budgeted<A> {
  answer: A;
  /** How many of the items the answer holds (a prefix). */
  count: number;
}

/**
 * The answer holding the longest prefix of `total` items whose rendered text is at most `maxChars`
 * characters. `build(count)` must hold the continuation when count < total, and its text must grow
 * with count (more items never render shorter), which a binary search relies on: about log2(total) builds.
 * `build` may be async (a continuation cursor is signed with a key that is read once).
 * Throws a ValidationError when not even the first item (or, with no items, the empty answer) fits.
 */
export async function fitBudget<A>(
  total: number,
  maxChars: number,
  build: (count: number) => A | Promise<A>,
  render: (answer: A) => string,
): Promise<Budgeted<A>> {
  checkMaxChars(maxChars);
  const all = await build(total);
  if (render(all).length <= maxChars) return { answer: all, count: total };
  let fits = 0;
  let fitting: A | undefined;
  let tooMany = total;
  while (tooMany - fits > 1) {
    const middle = Math.floor((fits + tooMany) / 2);
    const answer = await build(middle);
    if (render(answer).length <= maxChars) {
      fits = middle;
      fitting = answer;
    } else {
      tooMany = middle;
    }
  }
  if (fitting === undefined) {
    const needed = render(await build(Math.min(1, total))).length;
    throw new ValidationError(
      `maxChars ${maxChars} is too small: the answer with ${total === 0 ? "no entities" : "the next entity alone"} is ${needed} characters. ` +
        `Raise maxChars to at least ${needed}, or omit it.`,
    );
  }
  return { answer: fitting, count: fits };
}
