import { type AuthoredEntity, entity } from "./types.js";

const vendor = (name: string, observations: string[], links?: [string, string][]) => entity("vendor", name, observations, links);

export const VENDORS: AuthoredEntity[] = [
  vendor("Adyen", ["Card acquirer for all shopper payments; contract renews in April 2027."]),
  vendor("Modulr", ["Bank transfer provider for partner payouts."]),
  vendor("Cloudflare", ["CDN and DDoS protection in front of the website and images."]),
  vendor("Google Maps Platform", ["Road distances and travel times for route planning; billed per request."]),
  vendor("Loqate", ["Postcode and address lookup provider."]),
  vendor("SendGrid", ["Sends all email; dedicated IPs for marketing."]),
  vendor("Twilio", ["Primary SMS provider in the UK."]),
  vendor("MessageBird", ["Backup SMS provider since 2026."]),
  vendor("GitHub", ["Source control and Actions runners; Enterprise plan."]),
  vendor("AWS", ["Main cloud: EKS, RDS, MSK, S3 and DynamoDB in eu-west-2."]),
  vendor("Datadog", ["Metrics, logs and APM; the biggest line after AWS in the tooling budget."]),
  vendor("PagerDuty", ["Pages on-call engineers; escalation after 10 minutes."]),
  vendor("Zendesk", ["Support ticketing and the help-centre articles."]),
  vendor("OpenAI", ["Language model behind the help-centre chatbot, through Azure OpenAI."]),
  vendor("Looker", ["BI tool for dashboards; finance and operations are the heaviest users."]),
  vendor("Snowflake", ["Cloud data warehouse; billed on credits used."]),
  vendor("Okta", ["Staff identity provider for single sign-on to internal tools."]),
  vendor("Zebra Technologies", ["Makes the handheld scanners and label printers in the depots."]),
  vendor("Sentry", ["Crash reporting for the mobile apps and the website."]),
  vendor("Contentful", ["Headless CMS for banners, recipes and landing pages."]),
  vendor("Samsara", ["Van telematics: GPS, driver behaviour and battery data."]),
  vendor("Xero", ["Accounting software finance reconciles the ledger against."]),
  vendor("Snyk", ["Scans dependencies and containers for known vulnerabilities in CI."]),
  vendor("1Password", ["Password manager for staff; shared vaults per team."]),
  vendor("Onfido", ["Identity verification for new drivers before their first shift."]),
];
