// The Function App (Flex Consumption, Node 22) and ALL of its app settings.
//
// APP SETTINGS ARE A PUBLIC CONTRACT, AND A DRIFT TEST PARSES THIS FILE.
// The test reads the `var appSettings = {` block below to list the setting
// names the deployment sets, and compares them with the settings the code
// reads. Keep that block machine-readable:
//   - every setting is one `NAME: value` line inside that single object literal;
//   - no comments, spreads, union() or conditional keys inside it;
//   - no other file sets app settings (config/appsettings replaces the whole
//     set on every `azd provision`, so settings added by hand are removed).
// Optional settings the template does not set (the storage timeouts and
// MEMORY_REQUEST_TIMEOUT_MS) are listed in docs/deploy-azure.md, under Settings.
//
// Who reads what:
//   AzureWebJobsStorage__accountName / __credential / __clientId
//       the Functions host: its own storage, by managed identity, no key.
//   APPLICATIONINSIGHTS_CONNECTION_STRING, APPLICATIONINSIGHTS_AUTHENTICATION_STRING
//       the Functions host: telemetry, sent with an Entra token for the identity
//       (Application Insights has local auth disabled).
//   MEMORY_STORAGE_TABLE_ENDPOINT, MEMORY_TABLE_NAME, AZURE_CLIENT_ID
//       the app (design §5): table endpoint + DefaultAzureCredential, with
//       AZURE_CLIENT_ID selecting the user-assigned identity.
//   MEMORY_AUTH, MEMORY_API_KEYS, MEMORY_ENTRA_*, MEMORY_ALLOWED_ORIGINS, MEMORY_TOOLSETS
//       the app: authentication and tool groups. An empty value means "unset".
//   MEMORY_EMBEDDINGS, MEMORY_EMBEDDINGS_*
//       the app: what embeds texts for search by meaning; all empty = the local model.
//       Without an API key, an Azure OpenAI endpoint is called with AZURE_CLIENT_ID's identity.
// Flex Consumption rejects FUNCTIONS_WORKER_RUNTIME, FUNCTIONS_EXTENSION_VERSION
// and WEBSITE_RUN_FROM_PACKAGE; the runtime is set in functionAppConfig instead.

param name string
param location string
param tags object
param planName string

@description('Resource id of the user-assigned identity.')
param identityId string
@description('Client id of the user-assigned identity.')
param identityClientId string

param storageAccountName string
@description('URL of the blob container that holds the deployment package.')
param deploymentContainerUrl string
param applicationInsightsName string

param instanceMemoryMB int
param maximumInstanceCount int
param alwaysReadyInstances int

param tableEndpoint string
param tableName string

param memoryAuth string
@secure()
param memoryApiKeys string
param memoryEntraTenantId string
param memoryEntraAudience string
param memoryEntraGrants string
param memoryAllowedOrigins string
@description('MEMORY_TOOLSETS: default tool groups, comma-separated. Empty: every group.')
param memoryToolsets string
@description('MEMORY_EMBEDDINGS and the endpoint settings: empty values are unset (the local model).')
param memoryEmbeddings string
param memoryEmbeddingsEndpoint string
param memoryEmbeddingsModel string
param memoryEmbeddingsDimensions string
param memoryEmbeddingsApiVersion string
@secure()
param memoryEmbeddingsApiKey string

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

var appSettings = {
  AzureWebJobsStorage__accountName: storageAccountName
  AzureWebJobsStorage__credential: 'managedidentity'
  AzureWebJobsStorage__clientId: identityClientId
  APPLICATIONINSIGHTS_CONNECTION_STRING: applicationInsights.properties.ConnectionString
  APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'ClientId=${identityClientId};Authorization=AAD'
  MEMORY_STORAGE_TABLE_ENDPOINT: tableEndpoint
  MEMORY_TABLE_NAME: tableName
  AZURE_CLIENT_ID: identityClientId
  MEMORY_AUTH: memoryAuth
  MEMORY_API_KEYS: memoryApiKeys
  MEMORY_ENTRA_TENANT_ID: memoryEntraTenantId
  MEMORY_ENTRA_AUDIENCE: memoryEntraAudience
  MEMORY_ENTRA_GRANTS: memoryEntraGrants
  MEMORY_ALLOWED_ORIGINS: memoryAllowedOrigins
  MEMORY_TOOLSETS: memoryToolsets
  MEMORY_EMBEDDINGS: memoryEmbeddings
  MEMORY_EMBEDDINGS_ENDPOINT: memoryEmbeddingsEndpoint
  MEMORY_EMBEDDINGS_MODEL: memoryEmbeddingsModel
  MEMORY_EMBEDDINGS_DIMENSIONS: memoryEmbeddingsDimensions
  MEMORY_EMBEDDINGS_API_VERSION: memoryEmbeddingsApiVersion
  MEMORY_EMBEDDINGS_API_KEY: memoryEmbeddingsApiKey
}

resource plan 'Microsoft.Web/serverfarms@2024-04-01' = {
  name: planName
  location: location
  tags: tags
  kind: 'functionapp'
  sku: {
    tier: 'FlexConsumption'
    name: 'FC1'
  }
  properties: {
    reserved: true // Linux, the only OS Flex Consumption runs on
  }
}

resource functionApp 'Microsoft.Web/sites@2024-04-01' = {
  name: name
  location: location
  // azd finds the deployment target for service `api` by this tag.
  tags: union(tags, { 'azd-service-name': 'api' })
  kind: 'functionapp,linux'
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identityId}': {}
    }
  }
  properties: {
    serverFarmId: plan.id
    httpsOnly: true
    functionAppConfig: {
      deployment: {
        storage: {
          type: 'blobContainer'
          value: deploymentContainerUrl
          authentication: {
            type: 'UserAssignedIdentity'
            userAssignedIdentityResourceId: identityId
          }
        }
      }
      scaleAndConcurrency: {
        instanceMemoryMB: instanceMemoryMB
        maximumInstanceCount: maximumInstanceCount
        // 'http' is the group all HTTP-triggered functions scale in. Always-ready
        // instances remove cold starts but are billed while idle.
        alwaysReady: alwaysReadyInstances > 0 ? [
          {
            name: 'http'
            instanceCount: alwaysReadyInstances
          }
        ] : []
      }
      runtime: {
        name: 'node'
        version: '22'
      }
    }
  }

  resource settings 'config' = {
    name: 'appsettings'
    properties: appSettings
  }
}

output name string = functionApp.name
output defaultHostName string = functionApp.properties.defaultHostName
