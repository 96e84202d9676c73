import { InvalidSettingsError } from "../config/problems.js";
import type { FetchHandler } from "./handler.js";
import { errorResponse, isRead, json, refuseMethod } from "./responses.js";
import { probeRouteOf } from "./routes.js";

/**
 * What a door serves when the app cannot be built from its settings: the process is alive (health
 * 200), not ready (503 naming the settings to fix), and every other route answers 503 saying what
 * to fix. Responses name settings and what they expect, never their values; the values stay in the
 * log. An error that is not about a known setting is described only as a start-up failure.
 */
/** As the working handler answers health and readiness. */
const READ_METHODS = "GET, HEAD";

export function invalidConfigurationHandler(error: unknown, version: string): FetchHandler {
  const fixes = error instanceof InvalidSettingsError ? error.problems.map(({ setting, expected }) => ({ setting, expected })) : [];
  const summary =
    fixes.length > 0
      ? fixes.map(({ setting, expected }) => `${setting}: ${expected}`).join("; ")
      : "the app failed to start; its log says why";
  return async (request) => {
    const route = probeRouteOf(new URL(request.url).pathname);
    if (route === "health")
      return isRead(request) ? json(200, { status: "ok", version, configuration: "invalid" }) : refuseMethod(READ_METHODS);
    if (route === "ready")
      return isRead(request)
        ? json(503, { status: "unavailable", reason: `Invalid configuration: ${summary}.` })
        : refuseMethod(READ_METHODS);
    return errorResponse(503, {
      kind: "InvalidConfiguration",
      message: `This server's settings are invalid, so it serves no requests until an operator fixes them: ${summary}.`,
      details: { problems: fixes },
    });
  };
}
