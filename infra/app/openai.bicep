// Access of the Function App's identity to an existing Azure OpenAI account, so the app calls its embeddings deployment
// (MEMORY_EMBEDDINGS_ENDPOINT) with a managed identity token and no key. Deployed only when main.bicep names the account.
//
// - Cognitive Services OpenAI User on the account: inference calls (embeddings) with an Entra token, and nothing more: no
//   keys, no deployments, no fine-tuning.

@description('Name of the Azure OpenAI (or AI Services) account in this resource group.')
param accountName string

@description('Principal (object) id of the Function App identity.')
param appPrincipalId string

var cognitiveServicesOpenAiUser = subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '5e0bd9bd-7b93-4f28-af87-19fc36ad61bd')

resource account 'Microsoft.CognitiveServices/accounts@2024-10-01' existing = {
  name: accountName
}

resource appOpenAiUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(account.id, appPrincipalId, cognitiveServicesOpenAiUser)
  scope: account
  properties: {
    roleDefinitionId: cognitiveServicesOpenAiUser
    principalId: appPrincipalId
    // Stated so ARM accepts the brand-new identity before Entra ID has replicated it.
    principalType: 'ServicePrincipal'
  }
}

// The account's own endpoint (https://<name>.openai.azure.com/ or its custom subdomain): a URL with no path, which the
// app calls in the Azure OpenAI shape (src/search/embedding/endpointEmbedder.ts).
output endpoint string = account.properties.endpoint
