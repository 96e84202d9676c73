import { z } from "zod";

import { fitBudget } from "../domain/model/budget.js";
import { LIMITS } from "../domain/model/limits.js";

/**
 * maxChars on the read tools (docs/navigate.md#budgets): the input field, the output fields, and
 * the one way a tool cuts its answer. The domain's fitBudget finds how many whole entities fit.
 */
export const maxCharsInput = z
  .number()
  .meta({ type: "integer" })
  .optional()
  .describe(
    `Most characters of JSON text to return (1-${LIMITS.maxChars}). The answer stops at whole entities and says truncated, with how to continue.`,
  );

export const truncationOutput = {
  truncated: z.literal(true).optional().describe("Present when maxChars stopped the answer early: pass `cursor` back for the rest."),
  cursor: z.string().optional().describe("Present when more follows: pass it back unchanged, with the same other arguments."),
};

/**
 * The answer holding items [offset, end) for the largest `end` whose text fits `maxChars`, or all of
 * them without a budget. `build(end)` makes that answer (with its continuation when end < total);
 * `render` is the text the budget measures: what the agent reads.
 */
export async function withinBudget<A>(options: {
  total: number;
  offset: number;
  maxChars: number | undefined;
  build: (end: number) => A | Promise<A>;
  render: (answer: A) => string;
}): Promise<A> {
  const { total, offset, maxChars, build, render } = options;
  if (maxChars === undefined) return build(total);
  const { answer } = await fitBudget(Math.max(0, total - offset), maxChars, (count) => build(offset + count), render);
  return answer;
}

/**
 * A search tool's page under maxChars: its first whole items (`output[key]`) that fit, and when it
 * stops early, `truncated` and the `nextCursor` that continues after the last item shown, so the
 * next pages return the rest exactly once. `cursorAfter(i)` is the cursor after the page's item i.
 */
export function withinPageBudget<K extends string, A extends { [key in K]: unknown[] } & { nextCursor?: string }>(
  output: A,
  key: K,
  maxChars: number | undefined,
  cursorAfter: (index: number) => Promise<string>,
): Promise<A & { truncated?: true }> {
  const items = output[key];
  return withinBudget<A & { truncated?: true }>({
    total: items.length,
    offset: 0,
    maxChars,
    render: (answer) => JSON.stringify(answer),
    build: async (end) =>
      end === items.length
        ? output
        : { ...output, [key]: items.slice(0, end), truncated: true as const, nextCursor: await cursorAfter(end - 1) },
  });
}
