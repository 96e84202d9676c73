/** How to reach Table Storage: which connection, and the table. src/config reads it from the environment. */
export type StorageSettings =
  | { kind: "connectionString"; connectionString: string; tableName: string; source: string }
  | { kind: "identity"; endpoint: string; clientId?: string; tableName: string }
  | { kind: "none"; tableName: string };
