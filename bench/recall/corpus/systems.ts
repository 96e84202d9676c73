import { type AuthoredEntity, entity } from "./types.js";

const service = (name: string, observations: string[], links?: [string, string][]) => entity("service", name, observations, links);
const database = (name: string, observations: string[], links?: [string, string][]) => entity("database", name, observations, links);

export const SERVICES: AuthoredEntity[] = [
  service(
    "checkout-service",
    ["Turns a basket into an order and takes the card authorisation.", "Written in Kotlin; p99 target 400 ms."],
    [
      ["depends_on", "payment-gateway"],
      ["depends_on", "cart-service"],
      ["depends_on", "pricing-service"],
      ["depends_on", "fraud-scoring"],
    ],
  ),
  service(
    "payment-gateway",
    ["Thin wrapper over the card acquirer's API; retries with idempotency keys."],
    [
      ["depends_on", "Adyen"],
      ["stores_in", "payments-postgres"],
    ],
  ),
  service(
    "ledger-service",
    ["Double-entry ledger of every money movement; the source of truth for finance."],
    [["stores_in", "payments-postgres"]],
  ),
  service(
    "refund-service",
    ["Issues refunds to cards and to store credit; handles chargebacks."],
    [
      ["depends_on", "payment-gateway"],
      ["depends_on", "ledger-service"],
    ],
  ),
  service(
    "payout-service",
    ["Pays partner stores every Tuesday by bank transfer."],
    [
      ["depends_on", "ledger-service"],
      ["depends_on", "Modulr"],
    ],
  ),
  service("invoice-service", ["Produces VAT invoices as PDFs for business accounts."], [["depends_on", "tax-calculator"]]),
  service(
    "fraud-scoring",
    ["Scores each checkout for fraud risk with a gradient boosted model.", "Blocks above 0.92, sends 0.7 to 0.92 to manual review."],
    [["depends_on", "feature-store"]],
  ),
  service("tax-calculator", ["Works out VAT per line item, including the zero-rated food rules."]),
  service(
    "order-service",
    ["Keeps each order's state machine: placed, picked, packed, out for delivery, delivered."],
    [
      ["stores_in", "orders-postgres"],
      ["publishes_to", "kafka-cluster"],
    ],
  ),
  service("cart-service", ["Holds baskets while people shop; baskets expire after 30 days."], [["stores_in", "basket-redis"]]),
  service("pricing-service", ["Serves shelf prices and multibuy deals; price changes need approval."], [["stores_in", "orders-postgres"]]),
  service("promotions-service", ["Applies voucher codes and promotional discounts at checkout."], [["depends_on", "pricing-service"]]),
  service("loyalty-service", ["Awards points per pound spent and tracks membership tiers."], [["publishes_to", "kafka-cluster"]]),
  service("subscription-service", ["Bills the monthly delivery pass that waives delivery fees."], [["depends_on", "payment-gateway"]]),
  service("recommendations-service", ["Suggests 'you may also like' products from purchase history."], [["depends_on", "feature-store"]]),
  service(
    "catalog-service",
    ["Master data for 40,000 products: names, sizes, allergens, images."],
    [
      ["stores_in", "catalog-elasticsearch"],
      ["publishes_to", "kafka-cluster"],
    ],
  ),
  service(
    "search-api",
    ["Answers the search box and autocomplete; synonyms list maintained by hand."],
    [["stores_in", "catalog-elasticsearch"]],
  ),
  service("image-resizer", ["Resizes product photos on the fly and caches them at the CDN."], [["depends_on", "Cloudflare"]]),
  service("web-storefront", ["The Next.js website shoppers use on desktop and mobile browsers."], [["depends_on", "api-gateway"]]),
  service("ios-app", ["Shopper app for iPhone, written in Swift."], [["depends_on", "api-gateway"]]),
  service("android-app", ["Shopper app for Android, written in Kotlin with Jetpack Compose."], [["depends_on", "api-gateway"]]),
  service(
    "inventory-service",
    ["Tracks stock on hand per depot; nightly recount reconciles with scanners."],
    [["stores_in", "inventory-mysql"]],
  ),
  service(
    "warehouse-picking",
    ["Sends pick lists to handheld scanners, batched by aisle."],
    [
      ["depends_on", "inventory-service"],
      ["depends_on", "order-service"],
    ],
  ),
  service(
    "packing-station-ui",
    ["Screens at packing benches; prints bag labels on Zebra printers."],
    [["depends_on", "warehouse-picking"]],
  ),
  service(
    "substitutions-service",
    ["Proposes a replacement when an item is out of stock; shoppers can refuse it at the door."],
    [
      ["depends_on", "inventory-service"],
      ["depends_on", "recommendations-service"],
    ],
  ),
  service("slot-booking", ["Sells one-hour delivery windows and caps orders per van."], [["depends_on", "route-planner"]]),
  service(
    "route-planner",
    ["Plans van routes overnight and re-plans when a driver calls in sick."],
    [
      ["depends_on", "address-validation"],
      ["depends_on", "Google Maps Platform"],
    ],
  ),
  service(
    "courier-app-backend",
    ["Backend for the drivers' Android app: manifests, proof of delivery photos."],
    [["depends_on", "tracking-service"]],
  ),
  service("tracking-service", ["Streams van positions to shoppers' maps."], [["stores_in", "tracking-dynamodb"]]),
  service("address-validation", ["Checks postcodes and flags addresses outside the delivery area."], [["depends_on", "Loqate"]]),
  service(
    "notification-service",
    ["Fans out messages to push, SMS and email based on shopper preferences."],
    [
      ["depends_on", "push-service"],
      ["depends_on", "sms-gateway"],
      ["depends_on", "email-sender"],
    ],
  ),
  service("email-sender", ["Renders and sends transactional and marketing email."], [["depends_on", "SendGrid"]]),
  service("sms-gateway", ["Sends text messages such as 'your driver is 10 minutes away'."], [["depends_on", "Twilio"]]),
  service("push-service", ["Delivers push notifications through APNs and Firebase Cloud Messaging."]),
  service("auth-service", ["Issues shopper tokens; supports passkeys, passwords and magic links."], [["stores_in", "session-redis"]]),
  service(
    "account-service",
    ["Shopper profiles, saved addresses, marketing consent and data exports."],
    [["stores_in", "orders-postgres"]],
  ),
  service("api-gateway", ["Single entry point for apps and web; rate limits per client key."], [["depends_on", "auth-service"]]),
  service("feature-flags", ["Serves feature toggles and percentage rollouts to every service."]),
  service("ci-pipeline", ["GitHub Actions workflows that build, test and deploy every repository."], [["depends_on", "GitHub"]]),
  service("kubernetes-platform", ["Three EKS clusters: production, staging and tools."], [["depends_on", "AWS"]]),
  service(
    "observability-stack",
    ["Metrics, logs and traces; alerts page the on-call engineer."],
    [
      ["depends_on", "Datadog"],
      ["depends_on", "PagerDuty"],
    ],
  ),
  service("partner-api", ["REST API stores and brands use to upload stock and read their sales."], [["depends_on", "api-gateway"]]),
  service(
    "webhook-dispatcher",
    ["Pushes order events to partners' webhooks with retries and signatures."],
    [["depends_on", "kafka-cluster"]],
  ),
  service(
    "audit-log-service",
    ["Append-only record of staff actions in admin tools, kept seven years."],
    [["stores_in", "events-data-lake"]],
  ),
  service(
    "support-console",
    ["Where support agents see a shopper's orders, refunds and messages."],
    [
      ["depends_on", "refund-service"],
      ["stores_in", "support-mongodb"],
    ],
  ),
  service("ticket-router", ["Assigns incoming support tickets to queues by topic and language."], [["depends_on", "Zendesk"]]),
  service("help-chatbot", ["Answers common questions in the help centre before a human takes over."], [["depends_on", "OpenAI"]]),
  service(
    "analytics-ingest",
    ["Moves events from Kafka into Snowflake every five minutes."],
    [
      ["depends_on", "kafka-cluster"],
      ["stores_in", "analytics-warehouse"],
    ],
  ),
  service(
    "reporting-service",
    ["Builds the finance and operations dashboards from dbt models."],
    [
      ["depends_on", "analytics-warehouse"],
      ["depends_on", "Looker"],
    ],
  ),
  service(
    "demand-forecast",
    ["Predicts next week's sales per product and depot to drive purchase orders."],
    [["depends_on", "analytics-warehouse"]],
  ),
];

export const DATABASES: AuthoredEntity[] = [
  database("orders-postgres", ["PostgreSQL 15 primary with two replicas; holds orders, prices and accounts.", "Fails over with Patroni."]),
  database("payments-postgres", ["PostgreSQL 15 cluster for payments and the ledger; encrypted at rest, PCI scope."]),
  database("catalog-elasticsearch", ["Elasticsearch 8 cluster behind product search; six data nodes."]),
  database("basket-redis", ["Redis cluster holding open baskets; persistence with AOF every second."]),
  database("session-redis", ["Redis instance for shopper sessions and login tokens."]),
  database("inventory-mysql", ["MySQL 8 database of stock per depot, inherited from the first warehouse system."]),
  database(
    "analytics-warehouse",
    ["Snowflake account with the dbt models; finance reads from the marts schema."],
    [["hosted_by", "Snowflake"]],
  ),
  database("kafka-cluster", ["Kafka on MSK, 12 brokers; the order and catalog event topics live here."], [["hosted_by", "AWS"]]),
  database("events-data-lake", ["S3 bucket of raw events in Parquet, partitioned by day."], [["hosted_by", "AWS"]]),
  database("metrics-clickhouse", ["ClickHouse cluster for high-cardinality operational metrics."]),
  database("support-mongodb", ["MongoDB replica set storing support conversations and macros."]),
  database("tracking-dynamodb", ["DynamoDB table of van positions with a 48 hour TTL."], [["hosted_by", "AWS"]]),
  database("feature-store", ["Online feature store in Redis plus offline features in Snowflake, used by the models."]),
  database("secrets-vault", ["HashiCorp Vault holding database passwords and API keys; rotated every 90 days."]),
  database("backup-storage", ["Cross-region bucket with nightly database backups, kept 35 days."], [["hosted_by", "AWS"]]),
];
