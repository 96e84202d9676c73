import { DefaultAzureCredential, ManagedIdentityCredential, type TokenCredential } from "@azure/identity";

/**
 * The one choice of Azure credential, for every service reached by identity (the table, the embeddings endpoint): a
 * user-assigned managed identity is selected by its client id (AZURE_CLIENT_ID); without one, DefaultAzureCredential covers a
 * system-assigned identity and developers (az login).
 */
export function azureCredential(clientId?: string): TokenCredential {
  return clientId ? new ManagedIdentityCredential({ clientId }) : new DefaultAzureCredential();
}

/** Bearer tokens for `scope`, from a credential made on first use (the credential caches and renews its tokens). */
export function tokenSource(clientId: string | undefined, scope: string): () => Promise<string> {
  let credential: TokenCredential | undefined;
  return async () => {
    credential ??= azureCredential(clientId);
    const token = await credential.getToken(scope);
    if (!token) throw new Error(`the credential gave no token for ${scope}`);
    return token.token;
  };
}
