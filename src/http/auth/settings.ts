// The HTTP layer's view of the auth settings, which src/config reads and validates.
export type { ApiKeyEntry, AuthMode, AuthSettings, EntraGrant, EntraSettings } from "../../config/auth.js";
