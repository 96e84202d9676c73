/** Tests run as native ESM (the SDK, uuid and jose are ESM-only); ts-jest only strips types, `npm run typecheck` checks them. */
export default {
  testEnvironment: "node",
  extensionsToTreatAsEsm: [".ts"],
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
  transform: {
    "^.+\\.ts$": ["ts-jest", { useESM: true, diagnostics: false }],
  },
  testMatch: ["<rootDir>/test/**/*.test.ts"],
  globalSetup: "<rootDir>/test/support/azurite.ts",
  globalTeardown: "<rootDir>/test/support/globalTeardown.ts",
  testTimeout: 60000,
};
