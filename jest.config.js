/**
 * Tests run as native ESM (the SDK, uuid and jose are ESM-only); ts-jest only strips types, `npm run typecheck` checks them.
 * Two tiers: test/unit needs no storage and starts no Azurite (`npm test -- test/unit` runs in seconds): pure rules, and the
 * tool registry over the MCP SDK's in-memory transport; every other test talks to the one Azurite that globalSetup starts.
 */
const common = {
  testEnvironment: "node",
  extensionsToTreatAsEsm: [".ts"],
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
  transform: {
    "^.+\\.ts$": ["ts-jest", { useESM: true, diagnostics: false }],
  },
};

export default {
  testTimeout: 60000,
  projects: [
    // The unit tier needs no storage, but the local embedder needs the word-vector model the build makes (skipped when current).
    { ...common, displayName: "unit", testMatch: ["<rootDir>/test/unit/**/*.test.ts"], globalSetup: "<rootDir>/scripts/wordVectors.mjs" },
    {
      ...common,
      displayName: "storage",
      testMatch: ["<rootDir>/test/*.test.ts"],
      globalSetup: "<rootDir>/test/support/azurite.ts",
      globalTeardown: "<rootDir>/test/support/globalTeardown.ts",
    },
  ],
};
