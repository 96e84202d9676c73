// Log Analytics + workspace-based Application Insights.
// Local (instrumentation-key) auth is disabled, so only callers holding an Entra
// token with Monitoring Metrics Publisher (see rbac.bicep) can send telemetry.

param logAnalyticsName string
param applicationInsightsName string
param location string
param tags object

resource logAnalytics 'Microsoft.OperationalInsights/workspaces@2023-09-01' = {
  name: logAnalyticsName
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: 30
  }
}

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' = {
  name: applicationInsightsName
  location: location
  tags: tags
  kind: 'web'
  properties: {
    Application_Type: 'web'
    WorkspaceResourceId: logAnalytics.id
    DisableLocalAuth: true
  }
}

output applicationInsightsName string = applicationInsights.name
output logAnalyticsName string = logAnalytics.name
