import { readFileSync } from "node:fs";

import type { ApiKeyEntry, EntraGrant } from "./authSchemas.js";
import { SettingsReader } from "./table.js";

export type { ApiKeyEntry } from "./authSchemas.js";

/**
 * Authentication settings, read once from the environment, so a mistake stops the server at start
 * with a message naming the setting, instead of surfacing per request.
 */
export interface EntraSettings {
  issuer: string;
  jwksUrl: string;
  audiences: string[];
  grants: EntraGrant[];
  /** Advertised in the protected-resource metadata, for clients that sign in. */
  scopes: string[];
}

export type AuthMode =
  /** Anyone who can reach the server can read and write every workspace. */
  | { kind: "none"; defaulted: boolean }
  /** MEMORY_AUTH is unset where it must be chosen: every MCP request is refused. */
  | { kind: "unset" }
  | { kind: "required"; keys?: ApiKeyEntry[]; entra?: EntraSettings };

export interface AuthSettings {
  mode: AuthMode;
  /** Browser origins allowed to call MCP routes; a request with any other Origin is refused. */
  allowedOrigins: string[];
  /** scheme://host[:port] clients use, when a proxy hides it from the request URL (MEMORY_PUBLIC_URL, else https://$WEBSITE_HOSTNAME). */
  publicUrl?: string;
  /**
   * The server listens on a loopback address only: browser origins on loopback are allowed too, and a request must be
   * addressed to a loopback host (DNS-rebinding protection, MCP transport spec).
   */
  loopbackOnly?: true;
}

export interface AuthEnvironment {
  /** The local server listens on a loopback address: an unset MEMORY_AUTH then means `none`, and loopback origins are allowed. */
  localLoopback?: boolean;
}

/** The auth settings alone, with their own heading (readSettings reads them with everything else). */
export function readAuthSettings(env: NodeJS.ProcessEnv = process.env, where: AuthEnvironment = {}): AuthSettings {
  const read = new SettingsReader(env);
  const auth = authSettingsFrom(read, where);
  read.check("Invalid authentication settings");
  return auth;
}

export function authSettingsFrom(read: SettingsReader, where: AuthEnvironment): AuthSettings {
  const mode = readMode(read, where);
  const allowedOrigins = read.get("MEMORY_ALLOWED_ORIGINS") ?? [];
  // On Azure the front end's host name is known; a proxy in front of it still needs MEMORY_PUBLIC_URL.
  const azureHost = read.get("WEBSITE_HOSTNAME");
  const publicUrl = read.raw("MEMORY_PUBLIC_URL") ? read.get("MEMORY_PUBLIC_URL") : azureHost && `https://${azureHost}`;
  return { mode, allowedOrigins, ...(publicUrl ? { publicUrl } : {}), ...(where.localLoopback ? { loopbackOnly: true as const } : {}) };
}

function readMode(read: SettingsReader, where: AuthEnvironment): AuthMode {
  if (read.raw("MEMORY_AUTH") === undefined) {
    // Open by default only on a laptop: a loopback address, and not inside Azure App Service / Functions.
    return where.localLoopback && !read.raw("WEBSITE_SITE_NAME") ? { kind: "none", defaulted: true } : { kind: "unset" };
  }
  const methods = read.get("MEMORY_AUTH");
  if (methods === undefined) return { kind: "unset" };
  if (methods.includes("none")) return { kind: "none", defaulted: false };
  const keys = methods.includes("keys") ? readApiKeys(read) : undefined;
  const entra = methods.includes("entra") ? readEntra(read) : undefined;
  return { kind: "required", ...(keys ? { keys } : {}), ...(entra ? { entra } : {}) };
}

function readApiKeys(read: SettingsReader): ApiKeyEntry[] | undefined {
  const inline = read.raw("MEMORY_API_KEYS");
  const file = read.raw("MEMORY_API_KEYS_FILE");
  if (inline && file) {
    const message = "MEMORY_API_KEYS and MEMORY_API_KEYS_FILE are both set; set one.";
    read.problem("MEMORY_API_KEYS, MEMORY_API_KEYS_FILE", "only one of the two set", message);
    return undefined;
  }
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "error";
      read.problem(
        "MEMORY_API_KEYS_FILE",
        "the path of a readable file holding the JSON list of keys",
        `MEMORY_API_KEYS_FILE (${file}): cannot read the file (${code}).`,
      );
      return undefined;
    }
    return read.parse("MEMORY_API_KEYS", text, "MEMORY_API_KEYS_FILE");
  }
  if (inline) return read.get("MEMORY_API_KEYS");
  read.problem(
    "MEMORY_API_KEYS",
    "the JSON list of keys (or MEMORY_API_KEYS_FILE), since MEMORY_AUTH includes keys",
    "MEMORY_AUTH includes keys, but neither MEMORY_API_KEYS nor MEMORY_API_KEYS_FILE is set.",
  );
  return undefined;
}

function readEntra(read: SettingsReader): EntraSettings | undefined {
  const before = read.problems.length;
  const tenant = read.get("MEMORY_ENTRA_TENANT_ID");
  const authority = tenant ? `https://login.microsoftonline.com/${tenant}` : undefined;
  const issuer = read.raw("MEMORY_ENTRA_ISSUER") ? read.get("MEMORY_ENTRA_ISSUER") : authority && `${authority}/v2.0`;
  const jwksUrl = read.raw("MEMORY_ENTRA_JWKS_URL") ? read.get("MEMORY_ENTRA_JWKS_URL") : authority && `${authority}/discovery/v2.0/keys`;
  if (!read.raw("MEMORY_ENTRA_TENANT_ID") && (!read.raw("MEMORY_ENTRA_ISSUER") || !read.raw("MEMORY_ENTRA_JWKS_URL")))
    missingForEntra(read, "MEMORY_ENTRA_TENANT_ID");
  const audiences = read.get("MEMORY_ENTRA_AUDIENCE") ?? [];
  if (audiences.length === 0) missingForEntra(read, "MEMORY_ENTRA_AUDIENCE", "the app's client id or Application ID URI");
  if (!read.raw("MEMORY_ENTRA_GRANTS")) missingForEntra(read, "MEMORY_ENTRA_GRANTS", "JSON [{role|group|oid, workspaces, access}]");
  const grants = read.get("MEMORY_ENTRA_GRANTS");
  if (read.problems.length > before || !issuer || !jwksUrl || !grants) return undefined;
  // `<audience>/.default` asks Entra for every permission the app registration grants the client.
  return { issuer, jwksUrl, audiences, grants, scopes: [`${audiences[0]}/.default`] };
}

/** A setting entra needs, unset; `what` describes it when its name does not say enough. */
function missingForEntra(read: SettingsReader, setting: string, what?: string): void {
  const named = what ? `${setting} (${what})` : setting;
  read.problem(
    setting,
    `set, since MEMORY_AUTH includes entra${what ? `: ${what}` : ""}`,
    `MEMORY_AUTH includes entra, but ${named} is not set.`,
  );
}
