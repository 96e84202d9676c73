import { type AuthoredEntity, entity } from "./types.js";

const incident = (name: string, observations: string[], links?: [string, string][]) => entity("incident", name, observations, links);
const decision = (name: string, observations: string[], links?: [string, string][]) => entity("decision", name, observations, links);

export const INCIDENTS: AuthoredEntity[] = [
  incident(
    "Orders Postgres failover",
    [
      "On 3 March 2026 the primary lost its disk; Patroni promoted a replica after 4 minutes.",
      "Orders could not be placed during the switch.",
    ],
    [
      ["affected", "orders-postgres"],
      ["affected", "checkout-service"],
      ["handled_by", "Tobias Keller"],
    ],
  ),
  incident(
    "Black Friday checkout outage",
    [
      "Checkout returned errors for 38 minutes at the 8am peak on Black Friday 2025.",
      "Root cause: connection pool exhaustion in the payment gateway.",
    ],
    [
      ["affected", "checkout-service"],
      ["caused_by", "payment-gateway"],
      ["handled_by", "Patrick Murphy"],
    ],
  ),
  incident(
    "Duplicate card charges",
    ["Some shoppers were charged twice when the acquirer timed out and we retried without an idempotency key."],
    [
      ["affected", "payment-gateway"],
      ["handled_by", "Priya Raman"],
    ],
  ),
  incident(
    "Search returning no results",
    ["After an index mapping change the search box returned nothing for 'gluten free' and 500 other queries for two hours."],
    [
      ["affected", "search-api"],
      ["caused_by", "catalog-elasticsearch"],
      ["handled_by", "Omar Haddad"],
    ],
  ),
  incident(
    "Expired TLS certificate on partner API",
    ["The certificate on the partner endpoint lapsed on a Sunday; stores could not upload stock until Monday morning."],
    [
      ["affected", "partner-api"],
      ["handled_by", "Pedro Alves"],
    ],
  ),
  incident(
    "Kafka consumer lag after broker upgrade",
    ["A rolling broker upgrade left the analytics consumers eight hours behind."],
    [
      ["affected", "kafka-cluster"],
      ["affected", "analytics-ingest"],
      ["handled_by", "Nina Kowalski"],
    ],
  ),
  incident(
    "Redis eviction wiped baskets",
    ["Memory pressure made Redis evict keys; about 12,000 shoppers lost their baskets."],
    [
      ["affected", "basket-redis"],
      ["affected", "cart-service"],
      ["handled_by", "Felix Braun"],
    ],
  ),
  incident(
    "Wrong prices after bulk import",
    ["A supplier file with prices in pence instead of pounds made milk cost £109 for 20 minutes."],
    [
      ["affected", "pricing-service"],
      ["handled_by", "Jin Wang"],
    ],
  ),
  incident(
    "Vouchers stacking beyond limit",
    ["A bug let two 20% off codes combine; we honoured the orders and lost about £40,000."],
    [
      ["affected", "promotions-service"],
      ["handled_by", "Ben Carter"],
    ],
  ),
  incident(
    "Slot booking oversold on Christmas Eve",
    ["Twice as many orders were accepted as vans could carry for the 4pm window."],
    [
      ["affected", "slot-booking"],
      ["handled_by", "Sofia Rossi"],
    ],
  ),
  incident(
    "Route planner timeout during snow",
    ["Heavy snow closed roads; re-planning took 40 minutes and drivers left late."],
    [
      ["affected", "route-planner"],
      ["handled_by", "Kwame Asante"],
    ],
  ),
  incident(
    "SMS provider outage",
    ["Twilio had a regional outage; 'driver arriving' texts were not sent for an afternoon."],
    [
      ["affected", "sms-gateway"],
      ["caused_by", "Twilio"],
    ],
  ),
  incident(
    "Leaked API key in public repository",
    ["A staging key for the maps provider was pushed to a public gist; rotated within an hour."],
    [
      ["affected", "secrets-vault"],
      ["handled_by", "Viktor Horvath"],
    ],
  ),
  incident(
    "Login loop on iOS 19",
    ["After an operating system update some iPhone users were sent back to sign-in after every screen."],
    [
      ["affected", "ios-app"],
      ["affected", "auth-service"],
      ["handled_by", "Camille Dubois"],
    ],
  ),
  incident(
    "Nightly stock count job failed silently",
    ["The recount job crashed for five nights without alerting; shelves showed stock that was not there."],
    [
      ["affected", "inventory-service"],
      ["handled_by", "Grace Mensah"],
    ],
  ),
  incident(
    "Label printers offline in Leeds depot",
    ["A driver update broke the Zebra printers; packers wrote labels by hand for a shift."],
    [
      ["affected", "packing-station-ui"],
      ["handled_by", "Lukas Schmidt"],
    ],
  ),
  incident(
    "Refunds stuck in pending",
    ["A schema migration left 3,000 refunds pending for two days."],
    [
      ["affected", "refund-service"],
      ["handled_by", "Jonas Weber"],
    ],
  ),
  incident(
    "Payout file rejected by bank",
    ["The Tuesday payout file had a malformed sort code and the bank rejected the whole batch."],
    [
      ["affected", "payout-service"],
      ["caused_by", "Modulr"],
    ],
  ),
  incident(
    "Fraud model blocked genuine shoppers",
    ["A retrained model blocked 4% of genuine checkouts for a weekend."],
    [
      ["affected", "fraud-scoring"],
      ["handled_by", "Mei Lin"],
    ],
  ),
  incident(
    "Chatbot gave wrong refund policy",
    ["The help-centre bot told shoppers refunds take 30 days instead of 5."],
    [
      ["affected", "help-chatbot"],
      ["handled_by", "Amara Eze"],
    ],
  ),
  incident(
    "CDN cache served stale images",
    ["Product photos showed last season's packaging for a week after a purge failed."],
    [
      ["affected", "image-resizer"],
      ["caused_by", "Cloudflare"],
    ],
  ),
  incident(
    "Analytics warehouse cost spike",
    ["A runaway dbt model scanned the full events table hourly; the Snowflake bill tripled in May."],
    [
      ["affected", "analytics-warehouse"],
      ["handled_by", "Emma Davies"],
    ],
  ),
  incident(
    "Kubernetes node pool exhaustion",
    ["A mis-set autoscaler ceiling left pods pending during the lunch peak."],
    [
      ["affected", "kubernetes-platform"],
      ["handled_by", "Ingrid Larsen"],
    ],
  ),
  incident(
    "Feature flag misfire enabled beta checkout",
    ["A 1% rollout flag was saved as 100%; the unfinished checkout went to everyone for 15 minutes."],
    [
      ["affected", "feature-flags"],
      ["affected", "checkout-service"],
      ["handled_by", "Hyun-woo Park"],
    ],
  ),
  incident(
    "Email campaign sent twice",
    ["The win-back campaign went out twice to 800,000 shoppers."],
    [
      ["affected", "email-sender"],
      ["handled_by", "Zara Ahmed"],
    ],
  ),
  incident(
    "Address lookup down",
    ["Loqate returned errors for an hour; new shoppers could not add an address."],
    [
      ["affected", "address-validation"],
      ["caused_by", "Loqate"],
    ],
  ),
  incident(
    "Tracking map frozen",
    ["Van positions stopped updating because the DynamoDB table hit its write limit."],
    [
      ["affected", "tracking-service"],
      ["caused_by", "tracking-dynamodb"],
    ],
  ),
  incident(
    "Partner webhook storm",
    ["A retry bug sent each order event up to 50 times to one partner's endpoint."],
    [
      ["affected", "webhook-dispatcher"],
      ["handled_by", "Rosa Jiménez"],
    ],
  ),
  incident(
    "Inventory MySQL replication lag",
    ["Replicas fell 20 minutes behind during the nightly recount, so pick lists used old stock."],
    [
      ["affected", "inventory-mysql"],
      ["handled_by", "Tobias Keller"],
    ],
  ),
  incident(
    "Support console slow during storm Ciarán",
    ["Ticket volume tripled and the console took 20 seconds to open an order."],
    [
      ["affected", "support-console"],
      ["handled_by", "Daniel Kim"],
    ],
  ),
];

export const DECISIONS: AuthoredEntity[] = [
  decision(
    "ADR-001 Kotlin for backend services",
    ["New backend services are written in Kotlin on the JVM; Go only with a platform exception."],
    [["decided_by", "Oliver Grant"]],
  ),
  decision(
    "ADR-004 Kafka for domain events",
    ["Services publish domain events to Kafka instead of calling each other synchronously."],
    [
      ["decided_by", "Kofi Boateng"],
      ["applies_to", "kafka-cluster"],
    ],
  ),
  decision(
    "ADR-007 Idempotency keys on all payment calls",
    ["Every call to the acquirer carries an idempotency key derived from the order id."],
    [
      ["decided_by", "Priya Raman"],
      ["follows", "Duplicate card charges"],
    ],
  ),
  decision(
    "ADR-009 Move CI from Jenkins to GitHub Actions",
    ["Jenkins servers retired by June 2026; pipelines live in each repository."],
    [
      ["decided_by", "Marcus Johnson"],
      ["applies_to", "ci-pipeline"],
    ],
  ),
  decision(
    "ADR-011 Patroni for Postgres high availability",
    ["Automatic failover with Patroni and etcd instead of manual promotion."],
    [
      ["decided_by", "Tobias Keller"],
      ["applies_to", "orders-postgres"],
    ],
  ),
  decision(
    "ADR-012 Snowflake as the analytics warehouse",
    ["Chosen over BigQuery because finance already used it."],
    [
      ["decided_by", "Samuel Adeyemi"],
      ["applies_to", "analytics-warehouse"],
    ],
  ),
  decision(
    "ADR-014 Passkeys as the default sign-in",
    ["Shoppers are offered passkeys first; passwords stay as a fallback."],
    [
      ["decided_by", "Carlos Mendes"],
      ["applies_to", "auth-service"],
    ],
  ),
  decision(
    "ADR-015 No shared databases between teams",
    ["A team may read another team's data only through its API or events."],
    [["decided_by", "Oliver Grant"]],
  ),
  decision(
    "ADR-017 Feature flags for every risky release",
    ["Anything touching checkout ships dark behind a flag with a kill switch."],
    [
      ["decided_by", "Hyun-woo Park"],
      ["follows", "Feature flag misfire enabled beta checkout"],
    ],
  ),
  decision(
    "ADR-018 Redis persistence for baskets",
    ["Basket Redis keeps AOF persistence and a noeviction policy."],
    [
      ["decided_by", "Felix Braun"],
      ["follows", "Redis eviction wiped baskets"],
    ],
  ),
  decision(
    "ADR-020 Price change approval over 50 percent",
    ["Any price change larger than half the old price needs a second person to approve."],
    [
      ["decided_by", "Jin Wang"],
      ["follows", "Wrong prices after bulk import"],
    ],
  ),
  decision(
    "ADR-021 One voucher per order",
    ["Only one discount code may be applied per order; loyalty points still apply."],
    [
      ["decided_by", "Isabel García"],
      ["follows", "Vouchers stacking beyond limit"],
    ],
  ),
  decision(
    "ADR-022 Certificates managed by cert-manager",
    ["All TLS certificates renew automatically; nothing is uploaded by hand."],
    [
      ["decided_by", "Pedro Alves"],
      ["follows", "Expired TLS certificate on partner API"],
    ],
  ),
  decision(
    "ADR-023 Secrets only in Vault",
    ["No credentials in repositories, CI variables or environment files; a pre-commit hook scans for them."],
    [
      ["decided_by", "Rebecca Stone"],
      ["follows", "Leaked API key in public repository"],
    ],
  ),
  decision(
    "ADR-025 Dead man's switch for batch jobs",
    ["Every nightly job pings a heartbeat monitor; silence pages the owner."],
    [
      ["decided_by", "Anika Sharma"],
      ["follows", "Nightly stock count job failed silently"],
    ],
  ),
  decision(
    "ADR-026 Shadow mode before fraud model releases",
    ["A retrained fraud model runs in shadow for a week before it can block anyone."],
    [
      ["decided_by", "Mei Lin"],
      ["follows", "Fraud model blocked genuine shoppers"],
    ],
  ),
  decision(
    "ADR-027 Human review of chatbot answers on policy",
    ["Bot answers about refunds, allergies and age-restricted items come from approved snippets only."],
    [
      ["decided_by", "Amara Eze"],
      ["follows", "Chatbot gave wrong refund policy"],
    ],
  ),
  decision(
    "ADR-028 Warehouse cost budgets per dbt model",
    ["Each dbt model has a credit budget; the CI job fails a model that would exceed it."],
    [["decided_by", "Emma Davies"]],
  ),
  decision(
    "ADR-029 Second SMS provider for failover",
    ["Messages fall back to MessageBird when Twilio errors for more than a minute."],
    [
      ["decided_by", "Maya Cohen"],
      ["follows", "SMS provider outage"],
    ],
  ),
  decision(
    "ADR-030 Monorepo for mobile apps",
    ["iOS and Android share one repository with shared API models generated from OpenAPI."],
    [["decided_by", "Camille Dubois"]],
  ),
  decision(
    "ADR-031 Jetpack Compose for Android UI",
    ["All new Android screens use Compose; XML layouts are migrated when touched."],
    [["decided_by", "Mateo Silva"]],
  ),
  decision(
    "ADR-032 Weekly mobile release train",
    ["Apps are cut every Monday and submitted to the stores on Wednesday."],
    [["decided_by", "Hana Yoshida"]],
  ),
  decision(
    "ADR-033 Slot capacity from van count",
    ["Delivery windows are capped by vans available, not by a fixed number per hour."],
    [
      ["decided_by", "Sofia Rossi"],
      ["follows", "Slot booking oversold on Christmas Eve"],
    ],
  ),
  decision(
    "ADR-034 Keep DynamoDB for live tracking",
    ["Van positions stay in DynamoDB with on-demand capacity rather than moving to Postgres."],
    [
      ["decided_by", "Noah Williams"],
      ["follows", "Tracking map frozen"],
    ],
  ),
  decision(
    "ADR-035 Webhook retries with exponential backoff",
    ["Partner webhooks retry at most 8 times with backoff and a circuit breaker per endpoint."],
    [
      ["decided_by", "Rosa Jiménez"],
      ["follows", "Partner webhook storm"],
    ],
  ),
  decision(
    "ADR-036 Substitutions opt-out per product",
    ["Shoppers can say 'no substitute' on any line of their order."],
    [["decided_by", "Sarah Whitfield"]],
  ),
  decision(
    "ADR-037 Load test before every peak",
    ["Checkout and slot booking are load tested at three times last year's peak each November."],
    [
      ["decided_by", "Lucía Romero"],
      ["follows", "Black Friday checkout outage"],
    ],
  ),
  decision(
    "ADR-038 OpenTelemetry for tracing",
    ["Services emit OpenTelemetry traces; vendor agents are not installed in application code."],
    [["decided_by", "Anika Sharma"]],
  ),
  decision(
    "ADR-039 GDPR exports within 7 days",
    ["Data subject access requests are answered automatically within a week."],
    [["decided_by", "Julia Novak"]],
  ),
  decision(
    "ADR-040 Seven year retention for audit logs",
    ["Staff action logs are kept for seven years to satisfy financial regulators."],
    [
      ["decided_by", "Leila Hosseini"],
      ["applies_to", "audit-log-service"],
    ],
  ),
];
