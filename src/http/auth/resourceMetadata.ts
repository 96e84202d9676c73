import type { AuthSettings } from "../../config/auth.js";

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728), as the MCP authorization spec asks: a 401
 * points at it, and it tells a client which authorization server issues tokens for this server.
 * For a resource https://host/api/mcp the document lives at
 * https://host/.well-known/oauth-protected-resource/api/mcp (the well-known prefix goes between
 * host and path); the bare /.well-known/oauth-protected-resource describes the whole host.
 */
export const METADATA_PREFIX = "/.well-known/oauth-protected-resource";

/** The absolute URL clients use for `path` on this server. */
export function resourceUrl(request: Request, settings: AuthSettings, path: string): string {
  return `${settings.publicUrl ?? new URL(request.url).origin}${path === "/" ? "" : path}`;
}

function metadataUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}${METADATA_PREFIX}${url.pathname === "/" ? "" : url.pathname}`;
}

/** The WWW-Authenticate value of a 401 (RFC 6750 §3, RFC 9728 §5.1). */
export function bearerChallenge(resource: string, error?: { code: string; description: string }): string {
  const params = [`resource_metadata="${metadataUrl(resource)}"`];
  // Quoted-string values: drop characters that would end or escape the quotes.
  if (error) params.push(`error="${error.code}"`, `error_description="${error.description.replace(/["\\]/g, "")}"`);
  return `Bearer ${params.join(", ")}`;
}

export function metadataDocument(resource: string, settings: AuthSettings): Record<string, unknown> {
  const entra = settings.mode.kind === "required" ? settings.mode.entra : undefined;
  return {
    resource,
    ...(entra ? { authorization_servers: [entra.issuer], scopes_supported: entra.scopes } : {}),
    bearer_methods_supported: ["header"],
    resource_name: "central-memory-mcp",
  };
}

/** A response that names this server by the request's Host header (no public URL is configured) varies with it. */
export function variesWithHost(settings: AuthSettings): Record<string, string> {
  return settings.publicUrl !== undefined ? {} : { vary: "Host" };
}
