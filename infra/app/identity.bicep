// The one identity the Function App uses for everything: host storage, the
// deployment package, the memory table and telemetry ingestion. User-assigned
// (not system-assigned) so that role assignments can be created before the app
// exists and survive if the app is recreated.

param name string
param location string
param tags object

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31' = {
  name: name
  location: location
  tags: tags
}

output id string = identity.id
output name string = identity.name
output principalId string = identity.properties.principalId
output clientId string = identity.properties.clientId
