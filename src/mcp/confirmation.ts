import { createHash, randomBytes } from "node:crypto";

import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  type InputRequiredResult,
  inputResponse,
  PROTOCOL_VERSION_META_KEY,
  type RequestStateCodec,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { z } from "zod";

import { derivedKey } from "../domain/model/derivedKey.js";
import { ConflictError, ValidationError } from "../domain/model/errors.js";
import type { Services } from "../domain/services/services.js";

/**
 * Confirmation before destruction (docs/confirmation.md). A tool that is about to destroy something asks through
 * `ToolContext.confirm`; how depends on what the client can do:
 * - a 2026-07-28 client that declares elicitation in its request envelope: the user is asked, through an input_required
 *   result carrying a sealed request state, and the call runs when the retry brings the user's "yes" with that state, on
 *   any instance (stateless: the state carries everything, signed with a key every instance shares);
 * - any other client (every 2025-era client: a stateless server never sees its initialize, and could not receive its
 *   answer to a server request anyway): the tool's explicit confirmation argument.
 */
interface ConfirmationRequest {
  /** What the user is asked, naming what would be destroyed. */
  question: string;
  /**
   * The arguments that decide what changes, without confirmation fields: a confirmation holds for exactly these (with the
   * tool, workspace and caller), so a "yes" to one call cannot confirm another.
   */
  subject: unknown;
  /** Whether the agent passed the tool's explicit confirmation, the way for clients that cannot ask their user. */
  explicit: boolean;
  /** What to pass instead, said when nothing confirmed the call. */
  howToConfirm: string;
}

/** Who confirmed: the client's user, or the agent through the tool's argument. */
type Confirmed = "user" | "explicit";

export type Confirm = (request: ConfirmationRequest) => Promise<Confirmed>;

/** Thrown by `confirm` to end the call with a question to the user; the tools/call handler returns its result. */
export class AskingUser extends Error {
  constructor(readonly result: InputRequiredResult) {
    super("asking the user to confirm");
  }
}

/** The key of the one input request, and of the answer the retry brings. */
const CONFIRM_INPUT = "confirm";
/** How long the user has to answer; a later answer is refused as expired (and the call can simply be made again). */
const STATE_TTL_SECONDS = 600;

/** What the sealed request state holds: enough to check, on any instance, that the retry is the call that was asked about. */
const sealedState = z.object({
  tool: z.string(),
  workspace: z.string(),
  /** A digest of the caller's principal id: the state is signed, not encrypted, and the client can read it. */
  caller: z.string(),
  subject: z.string(),
  nonce: z.string().regex(/^[0-9a-f]{32}$/),
  expiresAtMs: z.number().int(),
});
type SealedState = z.infer<typeof sealedState>;

/** The call a confirmation is for. */
export interface ConfirmationCall {
  tool: string;
  workspace: string;
  principal: string;
  ctx: ServerContext;
  confirmations: Services["confirmations"];
}

/** The `confirm` facility of one tools/call. */
export function confirmer(call: ConfirmationCall): Confirm {
  return async (request) => {
    if (!canAskUser(call.ctx)) {
      if (request.explicit) return "explicit";
      throw new ValidationError(
        `${call.tool} needs a confirmation, and this client cannot ask its user: ${request.howToConfirm}. Nothing was changed.`,
      );
    }
    // On a client that can ask its user, only the user's answer confirms: the agent's own argument is not that answer.
    const echoed = call.ctx.mcpReq.requestState();
    if (typeof echoed !== "string") throw new AskingUser(await ask(call, request));
    const state = await unsealed(call, echoed);
    if (
      state.tool !== call.tool ||
      state.workspace !== call.workspace ||
      state.caller !== digest(call.principal) ||
      state.subject !== digest(canonicalJson(request.subject))
    ) {
      throw new ValidationError(
        `This confirmation was given for another call (another tool, workspace, caller or arguments), not for this ${call.tool}. ` +
          "Nothing was changed. Call the tool again without requestState to ask the user about this call.",
      );
    }
    const answer = inputResponse(call.ctx.mcpReq.inputResponses, CONFIRM_INPUT);
    if (answer.kind !== "elicit") {
      throw new ValidationError(
        `${call.tool} was not confirmed: the retry carries no answer to the question. Nothing was changed. ` +
          "Call the tool again without requestState to ask the user again.",
      );
    }
    if (answer.action !== "accept" || answer.content?.[CONFIRM_INPUT] !== true) {
      const how = answer.action === "accept" ? "did not answer yes" : `${answer.action === "decline" ? "declined" : "cancelled"}`;
      throw new ValidationError(`${call.tool} was not confirmed: the user ${how}. Nothing was changed.`);
    }
    // Last, once everything else holds: a refused retry leaves the confirmation unused.
    const fresh = await call.confirmations.used.consume({
      nonce: state.nonce,
      expiresAtMs: state.expiresAtMs,
      tool: call.tool,
      workspace: call.workspace,
      principal: call.principal,
    });
    if (!fresh) {
      throw new ConflictError(
        `This confirmation was already used: each one confirms a single call. Nothing was changed by this one. ` +
          "Call the tool again without requestState to ask the user again.",
      );
    }
    return "user";
  };
}

/**
 * Whether the request's envelope (2026-07-28) declares form elicitation. A 2025-era request has no envelope: its client's
 * capabilities were declared at an initialize this stateless server never saw.
 */
function canAskUser(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  // Only a 2026-07-28 request can be answered with input_required: a 2025-era request that happens to carry some
  // envelope keys (without the protocol version that makes it 2026-era) is not asked.
  if (envelope?.[PROTOCOL_VERSION_META_KEY] !== "2026-07-28") return false;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { elicitation?: { form?: unknown; url?: unknown } } | undefined;
  const elicitation = capabilities?.elicitation;
  // An empty elicitation capability means form mode (the form-only revisions declared it so).
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

async function ask(call: ConfirmationCall, request: ConfirmationRequest): Promise<InputRequiredResult> {
  const expiresAtMs = Date.now() + STATE_TTL_SECONDS * 1000;
  const state: SealedState = {
    tool: call.tool,
    workspace: call.workspace,
    caller: digest(call.principal),
    subject: digest(canonicalJson(request.subject)),
    nonce: randomBytes(16).toString("hex"),
    expiresAtMs,
  };
  return inputRequired({
    inputRequests: {
      [CONFIRM_INPUT]: inputRequired.elicit({
        message: request.question,
        requestedSchema: {
          type: "object",
          properties: {
            [CONFIRM_INPUT]: { type: "boolean", title: "Confirm", description: "Yes: go ahead. This cannot be undone." },
          },
          required: [CONFIRM_INPUT],
        },
      }),
    },
    requestState: await (await codec(call)).mint(state, call.ctx),
  });
}

/** The state as it was sealed, or a ValidationError when this deployment did not seal it, it was altered, or it expired. */
async function unsealed(call: ConfirmationCall, echoed: string): Promise<SealedState> {
  let payload: unknown;
  try {
    payload = await (await codec(call)).verify(echoed, call.ctx);
  } catch {
    payload = undefined;
  }
  const parsed = sealedState.safeParse(payload);
  if (!parsed.success) {
    throw new ValidationError(
      `${call.tool} was not confirmed: requestState is not one this server issued (altered or made by hand), or it expired ` +
        `(${STATE_TTL_SECONDS / 60} minutes). Nothing was changed. Call the tool again without requestState to ask the user again.`,
    );
  }
  return parsed.data;
}

/**
 * The request states' codec (HMAC-SHA256, the SDK's), keyed by a key derived from the deployment's shared key with its own
 * label, as the viewer's session key is (src/http/viewerSession.ts): every instance verifies what another sealed, and a
 * state is never a valid cursor or session, nor the reverse.
 */
const codecs = new WeakMap<Uint8Array, RequestStateCodec<SealedState>>();
async function codec(call: ConfirmationCall): Promise<RequestStateCodec<SealedState>> {
  const shared = await call.confirmations.key();
  let known = codecs.get(shared);
  if (!known) {
    const key = derivedKey(shared, "confirmation-state");
    codecs.set(shared, (known = createRequestStateCodec<SealedState>({ key, ttlSeconds: STATE_TTL_SECONDS })));
  }
  return known;
}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("base64url");
}

/** JSON with object keys sorted, so the same arguments always give the same digest. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === "object" && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}
