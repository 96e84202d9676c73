import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from "jose";

import type { EntraSettings } from "../../config/auth.js";
import type { Grant, Principal } from "../../domain/model/access.js";

export type TokenCheck =
  | { ok: true; principal: Principal }
  /** The token is bad: the caller should get a new one. */
  | { ok: false; problem: "invalid"; message: string }
  /** The token could not be checked (the signing keys were unreachable): the caller should retry. */
  | { ok: false; problem: "unavailable"; message: string };

/** Entra signs access tokens with RS256. Everything else, `none` and HMAC included, is refused. */
const ALGORITHMS = ["RS256"];
/** Seconds of clock difference tolerated on exp and nbf. */
const CLOCK_TOLERANCE = 60;

/** Errors that say the token itself is wrong; any other failure is ours (keys unreachable). */
const TOKEN_ERRORS = new Set([
  errors.JWTExpired.code,
  errors.JWTClaimValidationFailed.code,
  errors.JWTInvalid.code,
  errors.JWSInvalid.code,
  errors.JWSSignatureVerificationFailed.code,
  errors.JOSEAlgNotAllowed.code,
  errors.JOSENotSupported.code,
  errors.JWKSNoMatchingKey.code,
  errors.JWKSMultipleMatchingKeys.code,
]);

/**
 * Verifies Entra ID access tokens: signature against the tenant's published keys (fetched once,
 * cached by jose and refetched when an unknown key id appears, at most every 30 s), issuer,
 * audience, expiry and not-before. Grants come from the token's roles, groups and oid claims.
 */
export function entraTokenVerifier(settings: EntraSettings): (token: string) => Promise<TokenCheck> {
  const keys = createRemoteJWKSet(new URL(settings.jwksUrl), { timeoutDuration: 5000 });
  return async (token) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: settings.issuer,
        audience: settings.audiences,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE,
        requiredClaims: ["exp"],
      }));
    } catch (error) {
      return failure(error);
    }
    const caller = text(payload.oid) ?? text(payload.azp) ?? text(payload.appid);
    if (caller === undefined) return { ok: false, problem: "invalid", message: "The token names no caller (no oid, azp or appid claim)." };
    return { ok: true, principal: { id: `entra:${caller}`, kind: "entra", grants: grantsFor(settings, payload) } };
  };
}

function grantsFor(settings: EntraSettings, payload: JWTPayload): Grant[] {
  const roles = texts(payload.roles);
  const groups = texts(payload.groups);
  const oid = text(payload.oid);
  return settings.grants
    .filter(
      (grant) =>
        (grant.role !== undefined && roles.includes(grant.role)) ||
        (grant.group !== undefined && groups.includes(grant.group)) ||
        (grant.oid !== undefined && grant.oid === oid),
    )
    .map((grant) => ({ workspaces: grant.workspaces, access: grant.access }));
}

function failure(error: unknown): TokenCheck {
  if (!(error instanceof errors.JOSEError) || !TOKEN_ERRORS.has(error.code)) {
    console.warn(`Entra token check failed on our side: ${error instanceof Error ? error.message : String(error)}`);
    return { ok: false, problem: "unavailable", message: "The token's signing keys could not be fetched. Retry shortly." };
  }
  if (error instanceof errors.JWTExpired) return { ok: false, problem: "invalid", message: "The token has expired." };
  if (error instanceof errors.JWTClaimValidationFailed)
    return { ok: false, problem: "invalid", message: `The token's ${error.claim} claim is not accepted.` };
  return { ok: false, problem: "invalid", message: "The token is not a valid, signed Entra ID access token." };
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

function texts(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}
