import { type AuthoredEntity, entity } from "./types.js";

const runbook = (name: string, observations: string[], links?: [string, string][]) => entity("runbook", name, observations, links);

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
