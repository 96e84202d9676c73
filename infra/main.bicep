// central-memory-mcp on Azure: what `azd up` provisions.
//
//   resource group  rg-<environmentName>
//   ├─ user-assigned identity       the app's only credential (app/identity.bicep)
//   ├─ storage account, keys off    host state, deployment package, memory table (app/storage.bicep)
//   ├─ Cosmos DB for Table          only when tableBackend = 'cosmos' (app/cosmos.bicep)
//   ├─ Log Analytics + App Insights Entra-only ingestion (app/monitoring.bicep)
//   ├─ role assignments             least privilege for the identity (app/rbac.bicep)
//   ├─ (an existing Azure OpenAI)   only when openAiAccountName is set: the identity may call it (app/openai.bicep)
//   └─ Flex Consumption plan + Function App, with every app setting (app/api.bicep)
//
// No secret is created or stored anywhere: every connection is by identity (an embeddings API key is
// stored only if you give one instead of naming an Azure OpenAI account).
// Subscription scope so that the resource group is part of the template.
//
// Parameters are set per environment with `azd env set <VAR> <value>`;
// main.parameters.json maps each VAR to a parameter. An unset VAR is left out
// of the deployment, so the defaults below are the only defaults.

targetScope = 'subscription'

// ---- azd standard parameters --------------------------------------------------

@minLength(1)
@maxLength(64)
@description('Name of the azd environment. Names the resource group and seeds the unique resource names.')
param environmentName string

@minLength(1)
@description('Region for all resources. It must offer the Flex Consumption plan (see docs/deploy-azure.md).')
@metadata({
  azd: {
    type: 'location'
  }
})
param location string

@description('Object id of whoever runs azd (azd fills it in). Used only for the optional data-access grant below.')
param principalId string = ''

@description('Let principalId read and write the memory table, for the import/export CLI and for running the server locally against Azure.')
param grantDeployerDataAccess bool = true

// ---- storage ------------------------------------------------------------------

@description('Where the memory graph lives: a table in the storage account, or Cosmos DB for Table.')
@allowed([
  'storage'
  'cosmos'
])
param tableBackend string = 'storage'

@minLength(3)
@maxLength(63)
@description('Name of the memory table (MEMORY_TABLE_NAME): letters and digits, starting with a letter.')
param memoryTableName string = 'memorygraph'

@minValue(1000)
@description('Cosmos backend only: autoscale ceiling of the table in RU/s (a multiple of 1000). Idle, it bills 10% of this.')
param cosmosMaxThroughput int = 1000

@description('Cosmos backend only: extra regions for automatic failover, for example ["westeurope"]. Empty: one region.')
param cosmosFailoverRegions array = []

// ---- Flex Consumption scale -------------------------------------------------------

@description('Memory of each instance, in MB. CPU and network scale with it.')
@allowed([
  512
  2048
  4096
])
param instanceMemoryMB int = 2048

@minValue(1)
@maxValue(1000)
@description('Upper bound on scale-out. Also a cost ceiling: each instance is billed while it executes.')
param maximumInstanceCount int = 40

@minValue(0)
@description('Instances kept warm for HTTP (no cold start). Billed continuously, with no free grant.')
param alwaysReadyInstances int = 0

// ---- authentication (app settings read by the code) -----------------------------------

@description('MEMORY_AUTH: how MCP callers authenticate.')
@allowed([
  'none'
  'keys'
  'entra'
  'keys,entra'
])
param memoryAuth string = 'keys'

// An array, not a @secure() string: azd passes JSON from an environment variable
// intact only to array/object parameters, and @secure() does not apply to arrays.
// Entries hold SHA-256 hashes of keys, never keys, so the value reveals no credential.
@description('MEMORY_API_KEYS: [{id, sha256, workspaces, access}] entries, as printed by `central-memory keys create`.')
param memoryApiKeys array = []

@description('MEMORY_ENTRA_TENANT_ID. Empty: the tenant of this subscription.')
param memoryEntraTenantId string = ''

@description('MEMORY_ENTRA_AUDIENCE: the aud claim expected in Entra tokens: the Application ID URI or client id of the app registration.')
param memoryEntraAudience string = ''

@description('MEMORY_ENTRA_GRANTS: [{role|group|oid, workspaces, access}] entries mapping token claims to workspaces.')
param memoryEntraGrants array = []

@description('MEMORY_ALLOWED_ORIGINS: browser origins allowed to call the MCP endpoint. Empty: requests that carry an Origin header are refused.')
param memoryAllowedOrigins string = ''

// ---- tool groups -------------------------------------------------------------------------

@description('MEMORY_TOOLSETS: the tool groups a connection gets by default, comma-separated (core, graph, tags). Empty: every group. Clients narrow them with ?toolsets= on the MCP URL.')
param memoryToolsets string = ''

// ---- search by meaning (MEMORY_EMBEDDINGS_*) ---------------------------------------------
// All empty: the packaged local model, no service. Naming an Azure OpenAI account grants the app's identity
// "Cognitive Services OpenAI User" on it and points MEMORY_EMBEDDINGS_ENDPOINT at it, so no key is needed.

@description('MEMORY_EMBEDDINGS: local, endpoint or off. Empty: endpoint when an endpoint or account is given, else local.')
@allowed([
  ''
  'local'
  'endpoint'
  'off'
])
param memoryEmbeddings string = ''

@description('Name of an existing Azure OpenAI account whose embeddings deployment the app calls with its identity. Empty: none.')
param openAiAccountName string = ''

@description('Resource group of that account. Empty: the one this template creates.')
param openAiResourceGroup string = ''

@description('MEMORY_EMBEDDINGS_ENDPOINT. Empty: the named Azure OpenAI account\'s endpoint, if any.')
param memoryEmbeddingsEndpoint string = ''

@description('MEMORY_EMBEDDINGS_MODEL: the model, or the Azure OpenAI deployment name.')
param memoryEmbeddingsModel string = ''

@description('MEMORY_EMBEDDINGS_DIMENSIONS: vector length, as text. Empty: the model\'s own.')
param memoryEmbeddingsDimensions string = ''

@description('MEMORY_EMBEDDINGS_API_VERSION (Azure OpenAI). Empty: the app\'s default.')
param memoryEmbeddingsApiVersion string = ''

@secure()
@description('MEMORY_EMBEDDINGS_API_KEY. Leave empty with an Azure OpenAI account: the identity is used instead.')
param memoryEmbeddingsApiKey string = ''

// ---- names --------------------------------------------------------------------

var abbrs = loadJsonContent('abbreviations.json')
// Stable per subscription + environment + region, so re-provisioning updates in place.
var resourceToken = toLower(uniqueString(subscription().id, environmentName, location))
var tags = {
  'azd-env-name': environmentName
}
var names = {
  resourceGroup: '${abbrs.resourcesResourceGroups}${environmentName}'
  identity: '${abbrs.managedIdentityUserAssignedIdentities}api-${resourceToken}'
  logAnalytics: '${abbrs.operationalInsightsWorkspaces}${resourceToken}'
  applicationInsights: '${abbrs.insightsComponents}${resourceToken}'
  storage: '${abbrs.storageStorageAccounts}${resourceToken}'
  cosmos: '${abbrs.documentDBDatabaseAccounts}${resourceToken}'
  plan: '${abbrs.webServerFarms}${resourceToken}'
  functionApp: '${abbrs.webSitesFunctions}api-${resourceToken}'
}
var deploymentContainerName = 'app-package'
var useCosmos = tableBackend == 'cosmos'
// Cosmos DB for Table data-plane endpoint (public cloud).
var cosmosTableEndpoint = 'https://${names.cosmos}.table.cosmos.azure.com'
var developerPrincipalId = grantDeployerDataAccess ? principalId : ''
var useOpenAiAccount = !empty(openAiAccountName)

// ---- resources ----------------------------------------------------------------

resource rg 'Microsoft.Resources/resourceGroups@2021-04-01' = {
  name: names.resourceGroup
  location: location
  tags: tags
}

module identity 'app/identity.bicep' = {
  name: 'identity'
  scope: rg
  params: {
    name: names.identity
    location: location
    tags: tags
  }
}

module monitoring 'app/monitoring.bicep' = {
  name: 'monitoring'
  scope: rg
  params: {
    logAnalyticsName: names.logAnalytics
    applicationInsightsName: names.applicationInsights
    location: location
    tags: tags
  }
}

module storage 'app/storage.bicep' = {
  name: 'storage'
  scope: rg
  params: {
    name: names.storage
    location: location
    tags: tags
    deploymentContainerName: deploymentContainerName
    tableName: memoryTableName
    createMemoryTable: !useCosmos
  }
}

module cosmos 'app/cosmos.bicep' = if (useCosmos) {
  name: 'cosmos'
  scope: rg
  params: {
    name: names.cosmos
    location: location
    tags: tags
    tableName: memoryTableName
    appPrincipalId: identity.outputs.principalId
    developerPrincipalId: developerPrincipalId
    autoscaleMaxThroughput: cosmosMaxThroughput
    failoverRegions: cosmosFailoverRegions
  }
}

module rbac 'app/rbac.bicep' = {
  name: 'rbac'
  scope: rg
  params: {
    storageAccountName: storage.outputs.name
    applicationInsightsName: monitoring.outputs.applicationInsightsName
    appPrincipalId: identity.outputs.principalId
    // With Cosmos the developer's grant is made on the Cosmos account instead.
    developerPrincipalId: useCosmos ? '' : developerPrincipalId
  }
}

module openAi 'app/openai.bicep' = if (useOpenAiAccount) {
  name: 'openai'
  scope: resourceGroup(empty(openAiResourceGroup) ? names.resourceGroup : openAiResourceGroup)
  params: {
    accountName: openAiAccountName
    appPrincipalId: identity.outputs.principalId
  }
  dependsOn: [
    rg
  ]
}

module api 'app/api.bicep' = {
  name: 'api'
  scope: rg
  params: {
    name: names.functionApp
    location: location
    tags: tags
    planName: names.plan
    identityId: identity.outputs.id
    identityClientId: identity.outputs.clientId
    storageAccountName: storage.outputs.name
    deploymentContainerUrl: '${storage.outputs.blobEndpoint}${deploymentContainerName}'
    applicationInsightsName: monitoring.outputs.applicationInsightsName
    instanceMemoryMB: instanceMemoryMB
    maximumInstanceCount: maximumInstanceCount
    alwaysReadyInstances: alwaysReadyInstances
    tableEndpoint: useCosmos ? cosmosTableEndpoint : storage.outputs.tableEndpoint
    tableName: memoryTableName
    memoryAuth: memoryAuth
    memoryApiKeys: string(memoryApiKeys)
    memoryEntraTenantId: empty(memoryEntraTenantId) ? tenant().tenantId : memoryEntraTenantId
    memoryEntraAudience: memoryEntraAudience
    memoryEntraGrants: string(memoryEntraGrants)
    memoryAllowedOrigins: memoryAllowedOrigins
    memoryToolsets: memoryToolsets
    memoryEmbeddings: memoryEmbeddings
    memoryEmbeddingsEndpoint: !empty(memoryEmbeddingsEndpoint) ? memoryEmbeddingsEndpoint : (useOpenAiAccount ? openAi.outputs.endpoint : '')
    memoryEmbeddingsModel: memoryEmbeddingsModel
    memoryEmbeddingsDimensions: memoryEmbeddingsDimensions
    memoryEmbeddingsApiVersion: memoryEmbeddingsApiVersion
    memoryEmbeddingsApiKey: memoryEmbeddingsApiKey
  }
  // Grant data access before the app first starts, so its first requests are
  // not refused (role assignments can still take minutes to propagate).
  dependsOn: [
    rbac
    cosmos
    openAi
  ]
}

// ---- outputs (azd stores them in .azure/<env>/.env) ------------------------------------

output AZURE_LOCATION string = location
output AZURE_TENANT_ID string = tenant().tenantId
output AZURE_RESOURCE_GROUP string = rg.name
output AZURE_FUNCTION_APP_NAME string = api.outputs.name
output AZURE_STORAGE_ACCOUNT_NAME string = storage.outputs.name
output AZURE_COSMOS_ACCOUNT_NAME string = useCosmos ? names.cosmos : ''
output APPLICATIONINSIGHTS_NAME string = monitoring.outputs.applicationInsightsName

// `azd env get-value MCP_ENDPOINT` prints the URL to give MCP clients.
output MCP_ENDPOINT string = 'https://${api.outputs.defaultHostName}/api/mcp'
output MCP_WORKSPACE_ENDPOINT_TEMPLATE string = 'https://${api.outputs.defaultHostName}/api/workspaces/{workspaceName}/mcp'
output MCP_HEALTH_URL string = 'https://${api.outputs.defaultHostName}/api/health'

// The same names the app reads, so the CLI or `npm start` can target the deployed
// table with `azd env get-values` (the deployer holds a data role on it).
output MEMORY_STORAGE_TABLE_ENDPOINT string = useCosmos ? cosmosTableEndpoint : storage.outputs.tableEndpoint
output MEMORY_TABLE_NAME string = memoryTableName
