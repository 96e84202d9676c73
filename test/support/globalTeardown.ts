import type { AzuriteProcess } from "./azurite.js";

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __azurite?: AzuriteProcess }).__azurite?.stop();
}
