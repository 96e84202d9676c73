import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { z } from "zod";
import { isWorkspacePattern, type Access } from "../../domain/access.js";
import { InvalidSettingsError, type SettingProblem } from "../invalidConfiguration.js";

/**
 * Authentication settings, read once from the environment and validated with zod, so a mistake
 * stops the server at start with a message naming the setting, instead of surfacing per request.
 */
export interface ApiKeyEntry {
  id: string;
  /** Lower-case hex SHA-256 of the key. The key itself is never stored. */
  sha256: string;
  workspaces: string[];
  access: Access;
}

/** Exactly one of role, group, oid: matched against the token's `roles`, `groups` and `oid` claims. */
export interface EntraGrant {
  role?: string;
  group?: string;
  oid?: string;
  workspaces: string[];
  access: Access;
}

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

const METHODS = ["none", "keys", "entra"] as const;

const workspacePattern = z
  .string()
  .refine(isWorkspacePattern, { message: "must be a workspace name, a prefix ending in '*' (e.g. team-*), or '*'" });
const grantFields = {
  workspaces: z.array(workspacePattern).min(1, { message: "must list at least one workspace or pattern" }),
  access: z.enum(["read", "write"]),
};

/** The MEMORY_API_KEYS schema; the keys CLI checks the entries it prints against it too. */
export const apiKeyEntries = z
  .array(
    z.strictObject({
      id: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, { message: "must be 1-64 letters, digits, '.', '_' or '-'" }),
      sha256: z
        .string()
        .regex(/^[0-9a-fA-F]{64}$/, { message: "must be the 64-hex-digit SHA-256 of the key (`central-memory keys create` prints it)" })
        .transform((hex) => hex.toLowerCase()),
      ...grantFields,
    }),
  )
  .min(1, { message: "lists no keys" })
  .superRefine((entries, ctx) => {
    const ids = new Set<string>();
    const hashes = new Set<string>();
    entries.forEach((entry, index) => {
      if (ids.has(entry.id))
        ctx.addIssue({ code: "custom", path: [index, "id"], message: `'${entry.id}' is used twice; key ids must be unique` });
      if (hashes.has(entry.sha256))
        ctx.addIssue({ code: "custom", path: [index, "sha256"], message: "is used twice; each key needs its own" });
      ids.add(entry.id);
      hashes.add(entry.sha256);
    });
  });

const entraGrantList = z
  .array(
    z
      .strictObject({
        role: z.string().min(1).optional(),
        group: z.string().min(1).optional(),
        oid: z.string().min(1).optional(),
        ...grantFields,
      })
      .refine((grant) => [grant.role, grant.group, grant.oid].filter((value) => value !== undefined).length === 1, {
        message: "give exactly one of role, group or oid",
      }),
  )
  .min(1, { message: "lists no grants" });

export function readAuthSettings(env: NodeJS.ProcessEnv = process.env, where: AuthEnvironment = {}): AuthSettings {
  const problems: SettingProblem[] = [];
  const mode = readMode(env, where, problems);
  const allowedOrigins = list(env.MEMORY_ALLOWED_ORIGINS).flatMap((value) => {
    const origin = originOf(value);
    if (origin === undefined) {
      const expected = "comma-separated origins like https://app.example.com (scheme, host, optional port; no path)";
      problems.push({
        setting: "MEMORY_ALLOWED_ORIGINS",
        expected,
        message: `MEMORY_ALLOWED_ORIGINS: '${value}' is not an origin like https://app.example.com (scheme, host, optional port; no path).`,
      });
    }
    return origin === undefined ? [] : [origin];
  });
  // Under Azure the site's own host name is the public URL, so discovery never reflects a request's Host header.
  const siteHost = env.WEBSITE_HOSTNAME?.trim();
  const publicValue = env.MEMORY_PUBLIC_URL?.trim() || (siteHost ? `https://${siteHost}` : undefined);
  const publicUrl = publicValue ? originOf(publicValue) : undefined;
  if (publicValue && publicUrl === undefined) {
    problems.push({
      setting: "MEMORY_PUBLIC_URL",
      expected: "scheme://host[:port] with no path",
      message: `MEMORY_PUBLIC_URL: '${publicValue}' must be scheme://host[:port] with no path.`,
    });
  }
  if (problems.length > 0) throw new InvalidSettingsError(problems, "Invalid authentication settings");
  return { mode, allowedOrigins, ...(publicUrl ? { publicUrl } : {}), ...(where.localLoopback ? { loopbackOnly: true as const } : {}) };
}

function readMode(env: NodeJS.ProcessEnv, where: AuthEnvironment, problems: SettingProblem[]): AuthMode {
  const methods = list(env.MEMORY_AUTH).map((value) => value.toLowerCase());
  if (methods.length === 0) {
    // Open by default only on a laptop: a loopback address, and not inside Azure App Service / Functions.
    return where.localLoopback && !env.WEBSITE_SITE_NAME ? { kind: "none", defaulted: true } : { kind: "unset" };
  }
  const unknown = methods.filter((method) => !(METHODS as readonly string[]).includes(method));
  if (unknown.length > 0 || (methods.includes("none") && methods.length > 1)) {
    const expected = "one of none, keys, entra, keys,entra";
    problems.push({ setting: "MEMORY_AUTH", expected, message: `MEMORY_AUTH: '${env.MEMORY_AUTH}' is not ${expected}.` });
    return { kind: "unset" };
  }
  if (methods.includes("none")) return { kind: "none", defaulted: false };
  const keys = methods.includes("keys") ? readApiKeys(env, problems) : undefined;
  const entra = methods.includes("entra") ? readEntra(env, problems) : undefined;
  return { kind: "required", ...(keys ? { keys } : {}), ...(entra ? { entra } : {}) };
}

function readApiKeys(env: NodeJS.ProcessEnv, problems: SettingProblem[]): ApiKeyEntry[] | undefined {
  const inline = env.MEMORY_API_KEYS?.trim();
  const file = env.MEMORY_API_KEYS_FILE?.trim();
  if (inline && file) {
    const message = "MEMORY_API_KEYS and MEMORY_API_KEYS_FILE are both set; set one.";
    problems.push({ setting: "MEMORY_API_KEYS, MEMORY_API_KEYS_FILE", expected: "only one of the two set", message });
    return undefined;
  }
  if (!inline && !file) {
    const message = "MEMORY_AUTH includes keys, but neither MEMORY_API_KEYS nor MEMORY_API_KEYS_FILE is set.";
    problems.push({
      setting: "MEMORY_API_KEYS",
      expected: "the JSON list of keys (or MEMORY_API_KEYS_FILE), since MEMORY_AUTH includes keys",
      message,
    });
    return undefined;
  }
  let text = inline;
  const setting = file ? "MEMORY_API_KEYS_FILE" : "MEMORY_API_KEYS";
  if (file) {
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      const message = `MEMORY_API_KEYS_FILE (${file}): cannot read the file (${(error as NodeJS.ErrnoException).code ?? "error"}).`;
      problems.push({ setting, expected: "the path of a readable file holding the JSON list of keys", message });
      return undefined;
    }
  }
  return parseJson(setting, text ?? "", apiKeyEntries, problems);
}

function readEntra(env: NodeJS.ProcessEnv, problems: SettingProblem[]): EntraSettings | undefined {
  const before = problems.length;
  const tenant = env.MEMORY_ENTRA_TENANT_ID?.trim();
  if (tenant && !/^[A-Za-z0-9.-]+$/.test(tenant)) {
    const expected = "a tenant id (a GUID) or domain";
    problems.push({ setting: "MEMORY_ENTRA_TENANT_ID", expected, message: `MEMORY_ENTRA_TENANT_ID: '${tenant}' is not ${expected}.` });
  }
  const authority = tenant ? `https://login.microsoftonline.com/${tenant}` : undefined;
  const issuer = env.MEMORY_ENTRA_ISSUER?.trim() || (authority && `${authority}/v2.0`);
  const jwksUrl = env.MEMORY_ENTRA_JWKS_URL?.trim() || (authority && `${authority}/discovery/v2.0/keys`);
  if (!issuer || !jwksUrl) missingForEntra("MEMORY_ENTRA_TENANT_ID", undefined, problems);
  const httpsUrl = "an https URL (http only on a loopback address)";
  if (issuer && !safeUrl(issuer))
    problems.push({ setting: "MEMORY_ENTRA_ISSUER", expected: httpsUrl, message: `MEMORY_ENTRA_ISSUER: '${issuer}' must be ${httpsUrl}.` });
  if (jwksUrl && !safeUrl(jwksUrl))
    problems.push({
      setting: "MEMORY_ENTRA_JWKS_URL",
      expected: httpsUrl,
      message: `MEMORY_ENTRA_JWKS_URL: '${jwksUrl}' must be ${httpsUrl}.`,
    });
  const audiences = list(env.MEMORY_ENTRA_AUDIENCE);
  if (audiences.length === 0) missingForEntra("MEMORY_ENTRA_AUDIENCE", "the app's client id or Application ID URI", problems);
  const grantsText = env.MEMORY_ENTRA_GRANTS?.trim();
  if (!grantsText) missingForEntra("MEMORY_ENTRA_GRANTS", "JSON [{role|group|oid, workspaces, access}]", problems);
  const grants = grantsText ? parseJson("MEMORY_ENTRA_GRANTS", grantsText, entraGrantList, problems) : undefined;
  if (problems.length > before || !issuer || !jwksUrl || !grants) return undefined;
  // `<audience>/.default` asks Entra for every permission the app registration grants the client.
  return { issuer, jwksUrl, audiences, grants, scopes: [`${audiences[0]}/.default`] };
}

/** A setting entra needs, unset; `what` describes it when its name does not say enough. */
function missingForEntra(setting: string, what: string | undefined, problems: SettingProblem[]): void {
  const named = what ? `${setting} (${what})` : setting;
  problems.push({
    setting,
    expected: `set, since MEMORY_AUTH includes entra${what ? `: ${what}` : ""}`,
    message: `MEMORY_AUTH includes entra, but ${named} is not set.`,
  });
}

/**
 * JSON parser messages can quote the text, so they stay out of `expected`. Schema issues name the
 * entry and field, which are safe to show; so are our own messages (a key id, never a hash or key).
 */
function parseJson<T>(setting: string, text: string, schema: z.ZodType<T>, problems: SettingProblem[]): T | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    problems.push({ setting, expected: "valid JSON", message: `${setting} is not valid JSON: ${(error as Error).message}` });
    return undefined;
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues.slice(0, 10)) {
    const path = issue.path.map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`)).join("");
    problems.push({
      setting,
      expected: `${path ? `${path.replace(/^\./, "")}: ` : ""}${issue.message}`,
      message: `${setting}${path}: ${issue.message}`,
    });
  }
  return undefined;
}

function list(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}

/** `scheme://host[:port]` exactly, or undefined. */
function originOf(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
    if (url.pathname !== "/" || url.search || url.hash || url.username) return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/** Signing keys and issuers come over https; plain http only from this machine (tests, local JWKS). */
function safeUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname));
  } catch {
    return false;
  }
}

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (bare === "localhost" || bare === "::1") return true;
  return isIP(bare) === 4 && bare.startsWith("127.");
}
