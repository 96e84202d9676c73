import { type AuthoredEntity, entity } from "./types.js";

const project = (name: string, observations: string[], links?: [string, string][]) => entity("project", name, observations, links);
const customer = (name: string, observations: string[], links?: [string, string][]) => entity("customer", name, observations, links);
const vendor = (name: string, observations: string[], links?: [string, string][]) => entity("vendor", name, observations, links);
const runbook = (name: string, observations: string[], links?: [string, string][]) => entity("runbook", name, observations, links);

export const PROJECTS: AuthoredEntity[] = [
  project(
    "Project Swift",
    ["Twenty-minute rapid delivery from small dark stores in city centres.", "Pilot in Manchester from January 2027."],
    [
      ["led_by", "Sofia Rossi"],
      ["depends_on", "route-planner"],
    ],
  ),
  project(
    "Passkeys rollout",
    ["Finished in October 2026; 41% of sign-ins now use passkeys."],
    [
      ["led_by", "Carlos Mendes"],
      ["implements", "ADR-014 Passkeys as the default sign-in"],
    ],
  ),
  project(
    "Jenkins retirement",
    ["Moved 212 pipelines to GitHub Actions; the last Jenkins server was switched off in June."],
    [
      ["led_by", "Olivia Brown"],
      ["implements", "ADR-009 Move CI from Jenkins to GitHub Actions"],
    ],
  ),
  project(
    "Referral scheme",
    ["Give £10, get £10 when a friend places a first order.", "Planned for spring 2027."],
    [
      ["led_by", "Isabel García"],
      ["depends_on", "promotions-service"],
    ],
  ),
  project(
    "Partner self-serve portal",
    ["Lets stores manage their own listings, opening hours and stock without emailing us."],
    [
      ["led_by", "Rosa Jiménez"],
      ["depends_on", "partner-api"],
    ],
  ),
  project(
    "Electric van telematics",
    ["Reads battery charge from each van so routes never exceed remaining range."],
    [
      ["led_by", "Kwame Asante"],
      ["depends_on", "Samsara"],
    ],
  ),
  project(
    "Substitution quality",
    ["Goal: fewer than 5% of substitutes rejected at the door."],
    [
      ["led_by", "Liam O'Brien"],
      ["depends_on", "substitutions-service"],
    ],
  ),
  project(
    "Checkout rewrite",
    ["Splits the checkout monolith into basket, payment and confirmation steps.", "Behind a flag since August."],
    [
      ["led_by", "Priya Raman"],
      ["depends_on", "checkout-service"],
    ],
  ),
  project(
    "Search relevance 2026",
    ["Learning to rank for the search box, trained on clicks and add-to-basket."],
    [
      ["led_by", "Omar Haddad"],
      ["depends_on", "search-api"],
    ],
  ),
  project(
    "Handheld scanner replacement",
    ["Replaces 600 ageing Zebra scanners across the depots with Android devices."],
    [
      ["led_by", "Hannah Okafor"],
      ["depends_on", "Zebra Technologies"],
    ],
  ),
  project(
    "Data contracts",
    ["Each Kafka topic gets a schema, an owner and a compatibility rule checked in CI."],
    [
      ["led_by", "Nina Kowalski"],
      ["depends_on", "kafka-cluster"],
    ],
  ),
  project(
    "Black Friday readiness 2026",
    ["Load tests, code freeze from 20 November and extra on-call cover."],
    [
      ["led_by", "Lucía Romero"],
      ["implements", "ADR-037 Load test before every peak"],
    ],
  ),
  project(
    "SOC 2 Type II",
    ["Audit window runs January to June 2027; evidence collected automatically where possible."],
    [["led_by", "Leila Hosseini"]],
  ),
  project(
    "AWS cost reduction",
    ["Savings plans and right-sizing to cut the cloud bill by 18% this year."],
    [
      ["led_by", "Marcus Johnson"],
      ["depends_on", "AWS"],
    ],
  ),
  project(
    "Multi-region failover",
    ["A warm standby in eu-central-1 so a regional outage costs under an hour."],
    [
      ["led_by", "Patrick Murphy"],
      ["depends_on", "kubernetes-platform"],
    ],
  ),
  project(
    "Loyalty tiers",
    ["Silver, gold and platinum tiers with free delivery for platinum members."],
    [
      ["led_by", "Fatima Zahra"],
      ["depends_on", "loyalty-service"],
    ],
  ),
  project(
    "Accessibility audit",
    ["Bring the website and apps to WCAG 2.2 AA; screen reader fixes first."],
    [
      ["led_by", "Chloe Martin"],
      ["depends_on", "web-storefront"],
    ],
  ),
  project(
    "Scheduled deliveries for businesses",
    ["Offices and schools can book a repeating weekly order with invoicing."],
    [
      ["led_by", "Ethan Clarke"],
      ["depends_on", "invoice-service"],
    ],
  ),
  project(
    "Chatbot v2",
    ["Bot hands over to a human with the whole conversation and the order attached."],
    [
      ["led_by", "Amara Eze"],
      ["depends_on", "help-chatbot"],
    ],
  ),
  project(
    "Allergen labelling",
    ["Show the 14 regulated allergens on every product page and in the apps."],
    [
      ["led_by", "Yuki Tanaka"],
      ["depends_on", "catalog-service"],
    ],
  ),
  project(
    "Carbon footprint per order",
    ["Estimate emissions of each delivery and show them on the receipt."],
    [["led_by", "Ravi Shankar"]],
  ),
  project(
    "Kafka 3.7 upgrade",
    ["Upgrade brokers and clients; KRaft mode replaces ZooKeeper."],
    [
      ["led_by", "Nina Kowalski"],
      ["depends_on", "kafka-cluster"],
    ],
  ),
  project(
    "Recipe to basket",
    ["Paste a recipe and get every ingredient added to the basket in the right quantity."],
    [
      ["led_by", "Isabel García"],
      ["depends_on", "search-api"],
    ],
  ),
  project(
    "Offline mode for courier app",
    ["Drivers can finish deliveries in basements and rural areas and sync later."],
    [
      ["led_by", "Elena Petrova"],
      ["depends_on", "courier-app-backend"],
    ],
  ),
  project(
    "Demand forecast v3",
    ["Adds weather and school holidays as features; aims to cut waste of fresh produce by 10%."],
    [
      ["led_by", "Ravi Shankar"],
      ["depends_on", "demand-forecast"],
    ],
  ),
];

export const CUSTOMERS: AuthoredEntity[] = [
  customer(
    "Hartley's Bakery",
    ["Partner store in York selling bread and cakes through us since 2023.", "Uploads stock twice a day through the partner API."],
    [["uses", "partner-api"]],
  ),
  customer(
    "Greenleaf Organic Farm",
    ["Supplies organic vegetables boxes; complains when substitutes replace organic items with regular ones."],
    [["uses", "substitutions-service"]],
  ),
  customer(
    "Northgate Office Park",
    ["Corporate account: weekly fruit and milk for 14 offices, paid by invoice."],
    [["uses", "invoice-service"]],
  ),
  customer(
    "St Mary's Primary School",
    ["Orders breakfast club supplies every Monday; needs deliveries before 8am."],
    [["uses", "slot-booking"]],
  ),
  customer(
    "Brew and Bean Coffee",
    ["Chain of 9 cafés buying milk and pastries daily on a business account."],
    [["uses", "Scheduled deliveries for businesses"]],
  ),
  customer(
    "Kensington Care Home",
    ["Relies on accurate allergen data for 60 residents; asked for gluten-free filters."],
    [["uses", "catalog-service"]],
  ),
  customer(
    "Fresh Fields Co-op",
    ["Partner grocer in Bristol; their webhook endpoint was flooded during the retry bug."],
    [
      ["uses", "webhook-dispatcher"],
      ["affected_by", "Partner webhook storm"],
    ],
  ),
  customer(
    "Riverside Hospital Trust",
    ["Night-shift staff order through a dedicated corporate portal with monthly billing."],
    [["uses", "invoice-service"]],
  ),
  customer("Luna Pet Supplies", ["Partner brand selling pet food; wants better placement in search."], [["uses", "search-api"]]),
  customer(
    "Oakwood University",
    ["Student discount partnership: 15% off with a verified university email."],
    [["uses", "promotions-service"]],
  ),
  customer(
    "The Spice Route Deli",
    ["Small partner shop in Leicester; payouts to them failed when the bank rejected our file."],
    [["affected_by", "Payout file rejected by bank"]],
  ),
  customer("Cityline Gym Group", ["Corporate wellness perk: members get free delivery twice a month."], [["uses", "subscription-service"]]),
  customer(
    "Maple Street Pharmacy",
    ["Sells over-the-counter medicines through us; age checks needed on some products."],
    [["uses", "partner-api"]],
  ),
  customer(
    "Harbour View Hotel",
    ["Orders room-service supplies in bulk; unhappy about late deliveries in the snow."],
    [["affected_by", "Route planner timeout during snow"]],
  ),
  customer("Little Sprouts Nursery", ["Needs strict allergen information and no nut substitutions."], [["uses", "substitutions-service"]]),
  customer(
    "Peak District Outdoor",
    ["Camping shop partner; sells gas canisters that need special courier handling."],
    [["uses", "courier-app-backend"]],
  ),
  customer(
    "Summit Software Ltd",
    ["Tech company ordering office snacks; asked for an API to order automatically."],
    [["uses", "partner-api"]],
  ),
  customer("Willow Tree Florist", ["Partner florist; flowers must be delivered within 2 hours of picking."], [["uses", "slot-booking"]]),
  customer("Grand Central Station Kiosks", ["Twelve kiosks restocked every night from the Leeds depot."], [["uses", "inventory-service"]]),
  customer("Atlas Logistics", ["Handles our overflow deliveries at Christmas with their own drivers."], [["uses", "route-planner"]]),
  customer(
    "Blue Wave Swim School",
    ["Buys snacks and drinks for the café; pays by card on a business account."],
    [["uses", "checkout-service"]],
  ),
  customer(
    "Meadowbrook Dairy",
    ["Supplier and partner; their price file caused the wrong prices incident."],
    [["affected_by", "Wrong prices after bulk import"]],
  ),
  customer(
    "Nightingale Home Care",
    ["Carers order for elderly clients; need to pay with client-specific cards."],
    [["uses", "payment-gateway"]],
  ),
  customer("Vertex Bank", ["Corporate account for their London headquarters canteen, 3,000 staff."], [["uses", "invoice-service"]]),
  customer("Corner Bookshop Café", ["Tiny partner in Bath selling cakes; needs help with product photos."], [["uses", "image-resizer"]]),
  customer(
    "Golden Years Retirement Village",
    ["Residents order by phone through support agents instead of the app."],
    [["uses", "support-console"]],
  ),
  customer("Pixel Games Studio", ["Orders late-night meals for crunch weeks; heavy use of vouchers."], [["uses", "promotions-service"]]),
  customer(
    "Seaside Holiday Parks",
    ["Seasonal account: deliveries to 20 caravan parks from April to October."],
    [["uses", "address-validation"]],
  ),
  customer("Ironworks Brewery", ["Partner selling craft beer; needs age verification at the door."], [["uses", "courier-app-backend"]]),
  customer("Sunrise Yoga Studios", ["Buys fresh juice weekly; asked to pause deliveries in August."], [["uses", "subscription-service"]]),
];

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

export const RUNBOOKS: AuthoredEntity[] = [
  runbook(
    "Runbook: Postgres failover",
    ["Check Patroni status, confirm the new primary, then repoint read replicas.", "Never promote by hand while Patroni is running."],
    [
      ["covers", "orders-postgres"],
      ["covers", "payments-postgres"],
    ],
  ),
  runbook(
    "Runbook: rotate a leaked secret",
    ["Revoke at the provider first, then write the new value to Vault and restart the consumers."],
    [["covers", "secrets-vault"]],
  ),
  runbook(
    "Runbook: Kafka consumer lag",
    ["Find the slow consumer group, scale its pods, and check for poison messages."],
    [["covers", "kafka-cluster"]],
  ),
  runbook(
    "Runbook: restore a database from backup",
    ["Pick the snapshot, restore to a new instance, verify row counts, then swap DNS."],
    [["covers", "backup-storage"]],
  ),
  runbook(
    "Runbook: roll back a mobile release",
    ["Halt the phased rollout in App Store Connect and Google Play, then ship the previous build."],
    [
      ["covers", "ios-app"],
      ["covers", "android-app"],
    ],
  ),
  runbook(
    "Runbook: emergency kill switch",
    ["Turn the flag off in the flag console; changes reach services within 5 seconds."],
    [["covers", "feature-flags"]],
  ),
  runbook(
    "Runbook: payout file rejected",
    ["Download the bank's rejection report, fix the bad rows and resubmit before 2pm."],
    [["covers", "payout-service"]],
  ),
  runbook(
    "Runbook: stuck refunds",
    ["Query refunds pending over an hour and replay them through the refund worker."],
    [["covers", "refund-service"]],
  ),
  runbook(
    "Runbook: Redis memory pressure",
    ["Check the eviction policy and used memory; add shards before 80%."],
    [
      ["covers", "basket-redis"],
      ["covers", "session-redis"],
    ],
  ),
  runbook(
    "Runbook: rebuild the search index",
    ["Build a new index alongside, switch the alias, keep the old one for a day."],
    [["covers", "catalog-elasticsearch"]],
  ),
  runbook(
    "Runbook: renew a certificate by hand",
    ["Only when cert-manager is broken: issue with the ACME client and upload to the load balancer."],
    [["covers", "api-gateway"]],
  ),
  runbook(
    "Runbook: switch SMS provider",
    ["Flip the sms-provider flag to MessageBird and watch delivery receipts."],
    [["covers", "sms-gateway"]],
  ),
  runbook(
    "Runbook: re-plan routes",
    ["Trigger a partial re-plan for one depot; drivers get new manifests on their phones."],
    [["covers", "route-planner"]],
  ),
  runbook(
    "Runbook: label printer recovery",
    ["Roll back the printer driver from the depot admin laptop and reprint the queue."],
    [["covers", "packing-station-ui"]],
  ),
  runbook(
    "Runbook: roll back a price change",
    ["Restore the previous price list version from the pricing admin and clear caches."],
    [["covers", "pricing-service"]],
  ),
  runbook(
    "Runbook: revoke a voucher code",
    ["Expire the code in the promotions admin; orders already placed keep their discount."],
    [["covers", "promotions-service"]],
  ),
  runbook(
    "Runbook: add Kubernetes nodes",
    ["Raise the node group ceiling and watch pending pods drain."],
    [["covers", "kubernetes-platform"]],
  ),
  runbook("Runbook: major incident process", [
    "Declare in Slack, name an incident commander, post updates every 30 minutes, write a postmortem within 5 days.",
  ]),
  runbook("Runbook: engineer onboarding", ["Laptop, Okta account, GitHub team, on-call shadowing in week three."]),
  runbook("Runbook: leaver offboarding", ["Disable Okta first; it removes access to every tool within minutes."], [["covers", "Okta"]]),
  runbook(
    "Runbook: manual GDPR export",
    ["When the automatic export fails, run the export job for the shopper id and send the zip by secure link."],
    [["covers", "account-service"]],
  ),
  runbook(
    "Runbook: purge CDN cache",
    ["Purge by product tag, never the whole zone, then check a few product pages."],
    [["covers", "image-resizer"]],
  ),
  runbook(
    "Runbook: Snowflake cost alarm",
    ["Find the top queries by credits in the last hour and suspend the warehouse running them."],
    [["covers", "analytics-warehouse"]],
  ),
  runbook(
    "Runbook: fraud model rollback",
    ["Point the scorer back to the previous model version and clear the review queue."],
    [["covers", "fraud-scoring"]],
  ),
  runbook(
    "Runbook: chatbot off switch",
    ["Disable the bot in the help-centre settings so every chat goes straight to agents."],
    [["covers", "help-chatbot"]],
  ),
];
