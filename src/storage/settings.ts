/** How to reach Table Storage, read from the environment (design §5). */
export type StorageSettings =
  | { kind: "connectionString"; connectionString: string; tableName: string; source: string }
  | { kind: "identity"; endpoint: string; clientId?: string; tableName: string }
  | { kind: "none"; tableName: string };

export const DEFAULT_TABLE_NAME = "memorygraph";

/** Table names: 3-63 alphanumerics, starting with a letter. */
const TABLE_NAME = /^[A-Za-z][A-Za-z0-9]{2,62}$/;

export function readStorageSettings(env: NodeJS.ProcessEnv = process.env): StorageSettings {
  const tableName = env.MEMORY_TABLE_NAME?.trim() || DEFAULT_TABLE_NAME;
  if (!TABLE_NAME.test(tableName)) {
    throw new Error(`MEMORY_TABLE_NAME '${tableName}' is not a valid table name (3-63 letters and digits, starting with a letter).`);
  }
  const endpoint = env.MEMORY_STORAGE_TABLE_ENDPOINT?.trim();
  if (endpoint) {
    const clientId = env.AZURE_CLIENT_ID?.trim();
    return { kind: "identity", endpoint, tableName, ...(clientId ? { clientId } : {}) };
  }
  const own = env.MEMORY_STORAGE_CONNECTION_STRING?.trim();
  if (own) return { kind: "connectionString", connectionString: own, tableName, source: "MEMORY_STORAGE_CONNECTION_STRING" };
  const host = env.AzureWebJobsStorage?.trim();
  if (host) return { kind: "connectionString", connectionString: host, tableName, source: "AzureWebJobsStorage" };
  return { kind: "none", tableName };
}
