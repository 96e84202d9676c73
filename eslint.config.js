import js from "@eslint/js";
import simpleImportSort from "eslint-plugin-simple-import-sort";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "dist-bench-smoke/", "scratch/", "node_modules/", ".azurite/", "coverage/", "bench/results/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { "simple-import-sort": simpleImportSort },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", ignoreRestSiblings: true }],
      // Imports sorted one way everywhere (packages, then parent folders, then siblings), so a diff shows only what changed.
      "simple-import-sort/imports": "error",
      "simple-import-sort/exports": "error",
    },
  },
);
