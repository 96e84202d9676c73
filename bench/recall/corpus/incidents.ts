import { type AuthoredEntity, entity } from "./types.js";

const incident = (name: string, observations: string[], links?: [string, string][]) => entity("incident", name, observations, links);

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
