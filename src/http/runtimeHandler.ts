import type { Runtime } from "../runtime.js";
import { VERSION } from "../version.js";
import { createAuthenticator } from "./auth/authenticate.js";
import { createHandler, type FetchHandler } from "./handler.js";
import { tableReadiness } from "./readiness.js";

/** The HTTP handler both doors (Functions, the local server) serve, built from the runtime. */
export function createRuntimeHandler(runtime: Runtime): FetchHandler {
  const { auth, toolsets, requestTimeoutMs } = runtime.settings;
  return createHandler({
    services: runtime.services,
    readiness: tableReadiness(runtime.storage),
    version: VERSION,
    instrument: runtime.instrument,
    toolsets,
    requestTimeoutMs,
    sessionKey: runtime.cursorKey,
    auth: { settings: auth, authenticate: createAuthenticator(auth.mode) },
  });
}
