import { type AuthoredEntity, entity } from "./types.js";

const decision = (name: string, observations: string[], links?: [string, string][]) => entity("decision", name, observations, links);

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
