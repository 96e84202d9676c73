// The storage account: Functions host state (AzureWebJobsStorage), the Flex
// Consumption deployment package, and (with tableBackend = 'storage') the memory
// table. Shared keys are off: every caller authenticates with Entra ID.

param name string
param location string
param tags object
param deploymentContainerName string
param tableName string

@description('Create the memory table here. False when the graph lives in Cosmos DB.')
param createMemoryTable bool = true

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: name
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: 'Standard_LRS'
  }
  properties: {
    accessTier: 'Hot'
    allowSharedKeyAccess: false
    allowBlobPublicAccess: false
    minimumTlsVersion: 'TLS1_2'
    supportsHttpsTrafficOnly: true
    // With keys disabled, the portal must use Entra too, or its data views fail.
    defaultToOAuthAuthentication: true
    publicNetworkAccess: 'Enabled'
    networkAcls: {
      defaultAction: 'Allow'
      bypass: 'AzureServices'
    }
  }
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' = {
  parent: storage
  name: 'default'
}

// Flex Consumption runs the app from a package in this container.
resource deploymentContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: deploymentContainerName
  properties: {
    publicAccess: 'None'
  }
}

resource tableService 'Microsoft.Storage/storageAccounts/tableServices@2023-05-01' = {
  parent: storage
  name: 'default'
}

// Created here as well as by the app at start-up (which treats "already exists"
// as success), so the table is there before the first request arrives.
resource memoryTable 'Microsoft.Storage/storageAccounts/tableServices/tables@2023-05-01' = if (createMemoryTable) {
  parent: tableService
  name: tableName
}

output name string = storage.name
output blobEndpoint string = storage.properties.primaryEndpoints.blob
// Without the trailing slash that primaryEndpoints.table carries (design §5 form).
output tableEndpoint string = 'https://${storage.name}.table.${environment().suffixes.storage}'
