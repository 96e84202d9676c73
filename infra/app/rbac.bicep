// Azure RBAC (control-plane role assignments granting data access).
// Each assignment is named guid(scope, principal, role), so re-running a
// deployment finds the same assignment instead of failing on a duplicate.
//
// What the app identity gets, and why:
// - Storage Blob Data Owner on the account: the Functions host keeps its keys,
//   leases and locks in blobs and creates its own containers there (the
//   documented minimum for identity-based AzureWebJobsStorage), and Flex
//   Consumption reads the deployment package from a blob container with this
//   identity.
// - Storage Table Data Contributor on the account: the memory graph table
//   (read, write, create-if-missing at start-up). Account scope rather than
//   table scope because the host also persists its diagnostic events to a table
//   of its own through AzureWebJobsStorage.
// - Monitoring Metrics Publisher on Application Insights: local auth is disabled
//   there, so ingestion needs an Entra token with this role.
// What it does not get:
// - Storage Queue Data Contributor: only blob triggers, Durable Functions and
//   queue-based extensions use host queues; this app has HTTP triggers only.
// - Storage Account Contributor: only the blob trigger needs it.
// - Azure Files roles: Flex Consumption has no content file share.
// Cosmos DB data access is not Azure RBAC; it lives in cosmos.bicep.

param storageAccountName string
param applicationInsightsName string

@description('Principal (object) id of the Function App identity.')
param appPrincipalId string

@description('Principal id to grant read/write on the memory table (for the import/export CLI and local runs against Azure). Empty: no grant.')
param developerPrincipalId string = ''

var roleDefinitionIds = {
  storageBlobDataOwner: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b')
  storageTableDataContributor: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3')
  monitoringMetricsPublisher: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '3913510d-42f4-4e42-8a64-420c390055eb')
}

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

resource appBlobDataOwner 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(storage.id, appPrincipalId, roleDefinitionIds.storageBlobDataOwner)
  scope: storage
  properties: {
    roleDefinitionId: roleDefinitionIds.storageBlobDataOwner
    principalId: appPrincipalId
    // Stated so ARM accepts the brand-new identity before Entra ID has replicated it.
    principalType: 'ServicePrincipal'
  }
}

resource appTableDataContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(storage.id, appPrincipalId, roleDefinitionIds.storageTableDataContributor)
  scope: storage
  properties: {
    roleDefinitionId: roleDefinitionIds.storageTableDataContributor
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

resource appMetricsPublisher 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(applicationInsights.id, appPrincipalId, roleDefinitionIds.monitoringMetricsPublisher)
  scope: applicationInsights
  properties: {
    roleDefinitionId: roleDefinitionIds.monitoringMetricsPublisher
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

// The deployer already administers this resource group, so this grants nothing
// they could not grant themselves; it only saves a manual step. principalType is
// left out because the deployer is a user locally and a service principal in CI.
resource developerTableDataContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(developerPrincipalId)) {
  name: guid(storage.id, developerPrincipalId, roleDefinitionIds.storageTableDataContributor)
  scope: storage
  properties: {
    roleDefinitionId: roleDefinitionIds.storageTableDataContributor
    principalId: developerPrincipalId
  }
}
