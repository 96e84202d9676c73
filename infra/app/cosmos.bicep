// Optional backend (tableBackend = 'cosmos'): Azure Cosmos DB for Table.
//
// Access is Entra-only, like the storage account: key auth is disabled and the
// app identity gets Cosmos DB's built-in data-plane role "Cosmos DB Built-in Data
// Contributor" through a tableRoleAssignment. @azure/data-tables recognises the
// *.table.cosmos.azure.com host and asks for a Cosmos DB token, so the app code
// is the same for both backends. docs/deploy-azure.md explains why this was chosen
// over a Key Vault reference to an account key.
//
// Cosmos data-plane RBAC is not Azure RBAC: these assignments are child
// resources of the account, not Microsoft.Authorization/roleAssignments.

param name string
param location string
param tags object
param tableName string

@description('Principal (object) id of the Function App identity.')
param appPrincipalId string

@description('Principal id to grant the same data access (import/export CLI, local runs). Empty: no grant.')
param developerPrincipalId string = ''

@description('Autoscale ceiling for the table, in RU/s. It scales between 10% of this and this.')
param autoscaleMaxThroughput int

@description('Extra read regions for failover, in priority order. Empty: single region.')
param failoverRegions array

var failoverLocations = [for (region, i) in failoverRegions: {
  locationName: region
  failoverPriority: i + 1
  isZoneRedundant: false
}]
var locations = concat([
  {
    locationName: location
    failoverPriority: 0
    isZoneRedundant: false
  }
], failoverLocations)

resource account 'Microsoft.DocumentDB/databaseAccounts@2024-05-15' = {
  name: name
  location: location
  tags: tags
  kind: 'GlobalDocumentDB'
  properties: {
    databaseAccountOfferType: 'Standard'
    capabilities: [
      {
        name: 'EnableTable'
      }
    ]
    // Provisioned (autoscale) rather than serverless: this backend exists for
    // teams that outgrow a storage account or want other regions, and serverless
    // is single-region, capped at 5,000 RU/s per table and without latency SLA.
    locations: locations
    enableAutomaticFailover: !empty(failoverRegions)
    // Table Storage is strongly consistent, and the design's concurrency rules
    // (ETag checks, create-then-merge) and tests assume it. Strong keeps the
    // behaviour identical across backends; reads cost about twice the request
    // units of Session, and writes wait for every region.
    consistencyPolicy: {
      defaultConsistencyLevel: 'Strong'
    }
    disableLocalAuth: true
    // Keys are off, so management writes go through ARM only (this template).
    disableKeyBasedMetadataWriteAccess: true
    minimalTlsVersion: 'Tls12'
    publicNetworkAccess: 'Enabled'
  }
}

resource table 'Microsoft.DocumentDB/databaseAccounts/tables@2024-05-15' = {
  parent: account
  name: tableName
  properties: {
    resource: {
      id: tableName
    }
    options: {
      autoscaleSettings: {
        maxThroughput: autoscaleMaxThroughput
      }
    }
  }
}

// Built-in role present in every Cosmos DB for Table account.
var dataContributorRoleId = '${account.id}/tableRoleDefinitions/00000000-0000-0000-0000-000000000002'

// tableRoleAssignments is published only in preview API versions (the feature is
// in preview); 2024-12-01-preview is the earliest one that defines the type.
// The dependsOn chain serialises writes: Cosmos DB rejects concurrent
// metadata operations on one account.
resource appDataAccess 'Microsoft.DocumentDB/databaseAccounts/tableRoleAssignments@2024-12-01-preview' = {
  parent: account
  name: guid(account.id, appPrincipalId, dataContributorRoleId)
  properties: {
    principalId: appPrincipalId
    roleDefinitionId: dataContributorRoleId
    scope: account.id
  }
  dependsOn: [
    table
  ]
}

resource developerDataAccess 'Microsoft.DocumentDB/databaseAccounts/tableRoleAssignments@2024-12-01-preview' = if (!empty(developerPrincipalId)) {
  parent: account
  name: guid(account.id, developerPrincipalId, dataContributorRoleId)
  properties: {
    principalId: developerPrincipalId
    roleDefinitionId: dataContributorRoleId
    scope: account.id
  }
  dependsOn: [
    appDataAccess
  ]
}

output name string = account.name
