/**
 * The fixed corpus search ranking is judged on (test/search.ranking.test.ts, bench/searchLibraries.ts):
 * a team's memory of people, services, projects and decisions, with names that share words, accents,
 * and facts only an observation holds. Each query lists the names expected first, in order.
 */
export interface CorpusEntity {
  name: string;
  entityType: string;
  observations: string[];
}

export const CORPUS: CorpusEntity[] = [
  { name: "Alice Martin", entityType: "person", observations: ["Leads the payments team", "Prefers async reviews", "Based in Lyon"] },
  { name: "Bob Stone", entityType: "person", observations: ["On-call for the billing service", "Joined in 2021"] },
  { name: "Zoë Durand", entityType: "person", observations: ["Designs the onboarding flow", "Speaks French and German"] },
  { name: "José Álvarez", entityType: "person", observations: ["Maintains the search cluster", "Lives in Sevilla"] },
  { name: "Chloé Bernard", entityType: "person", observations: ["Product manager for mobile", "Runs the weekly demo"] },
  { name: "Dmitri Volkov", entityType: "person", observations: ["Security reviewer", "Owns the threat model"] },
  { name: "Priya Raman", entityType: "person", observations: ["Data engineer", "Built the nightly export to the warehouse"] },
  { name: "Payments", entityType: "team", observations: ["Owns checkout and refunds", "Pages Alice Martin first"] },
  { name: "Payments Gateway", entityType: "service", observations: ["Talks to Stripe and Adyen", "Written in Go", "p99 latency 180 ms"] },
  {
    name: "Payment Reconciliation",
    entityType: "job",
    observations: ["Runs nightly at 02:00 UTC", "Compares ledger entries with the bank feed"],
  },
  { name: "Billing Service", entityType: "service", observations: ["Issues invoices", "Depends on the Payments Gateway"] },
  { name: "Invoice Renderer", entityType: "service", observations: ["Turns invoices into PDF", "Uses headless Chromium"] },
  {
    name: "Search Cluster",
    entityType: "infrastructure",
    observations: ["Elasticsearch 8 on three nodes", "Snapshots to blob storage daily"],
  },
  { name: "Onboarding Flow", entityType: "feature", observations: ["Five screens", "Drop-off is highest on the address step"] },
  { name: "Mobile App", entityType: "product", observations: ["React Native", "Release train every two weeks"] },
  { name: "Web App", entityType: "product", observations: ["Next.js front end", "Served from the CDN"] },
  {
    name: "Kubernetes",
    entityType: "platform",
    observations: ["AKS clusters in West Europe and North Europe", "Upgraded to 1.30 in March"],
  },
  { name: "Postgres", entityType: "database", observations: ["Primary store for orders", "Point-in-time restore kept 35 days"] },
  { name: "Redis Cache", entityType: "database", observations: ["Session store", "Evicts with allkeys-lru"] },
  { name: "Kafka", entityType: "platform", observations: ["Event backbone", "Topics are compacted for customer profiles"] },
  { name: "Threat Model", entityType: "document", observations: ["Reviewed every quarter", "Lists the payment card data flows"] },
  {
    name: "Incident 2024-03 Outage",
    entityType: "incident",
    observations: ["Checkout down for 42 minutes", "Root cause: expired TLS certificate"],
  },
  {
    name: "Incident 2024-07 Latency",
    entityType: "incident",
    observations: ["Search latency spiked after a reindex", "Mitigated by adding a replica"],
  },
  {
    name: "Decision: Use Go for services",
    entityType: "decision",
    observations: ["Agreed in the 2022 architecture review", "Python stays for data jobs"],
  },
  {
    name: "Decision: Adopt OpenTelemetry",
    entityType: "decision",
    observations: ["Tracing across every service", "Replaces the vendor agent"],
  },
  {
    name: "Café Menu Project",
    entityType: "project",
    observations: ["A side project for the office café", "Crème brûlée is the favourite"],
  },
  { name: "Résumé Parser", entityType: "project", observations: ["Extracts skills from CVs", "Hiring team pilot"] },
  { name: "Naïve Bayes Classifier", entityType: "model", observations: ["Flags spam tickets", "Retrained monthly"] },
  { name: "Support Tickets", entityType: "dataset", observations: ["Exported from Zendesk", "About 40,000 a year"] },
  { name: "Customer Profiles", entityType: "dataset", observations: ["One row per customer", "Merged from CRM and the web app"] },
  { name: "Feature Flags", entityType: "tool", observations: ["LaunchDarkly", "Every release hides new screens behind a flag"] },
  { name: "CI Pipeline", entityType: "tool", observations: ["GitHub Actions", "Runs unit and integration tests on every pull request"] },
  {
    name: "Release Checklist",
    entityType: "document",
    observations: ["Sign-off from QA and product", "Changelog posted to the team channel"],
  },
  {
    name: "Quarterly Planning",
    entityType: "process",
    observations: ["Happens in the last two weeks of the quarter", "Capacity is set per team"],
  },
  {
    name: "Accessibility Audit",
    entityType: "project",
    observations: ["WCAG 2.2 AA target", "Screen reader fixes for the onboarding flow"],
  },
  { name: "Latency Budget", entityType: "policy", observations: ["Every API call under 300 ms at p99", "Measured at the load balancer"] },
  { name: "Data Retention Policy", entityType: "policy", observations: ["Logs kept 30 days", "Invoices kept ten years"] },
  {
    name: "Vendor Contract Stripe",
    entityType: "contract",
    observations: ["Renews every January", "Volume discount above one million transactions"],
  },
  { name: "Office Lyon", entityType: "location", observations: ["Twelve desks", "Next to the Part-Dieu station"] },
  { name: "Office Sevilla", entityType: "location", observations: ["Opened in 2023", "Hosts the search team"] },
  { name: "Hackathon 2025", entityType: "event", observations: ["Winner: offline mode for the mobile app", "Ran for two days"] },
  { name: "Offline Mode", entityType: "feature", observations: ["Caches the last 50 orders", "Syncs when the connection returns"] },
  { name: "Telemetry Dashboard", entityType: "tool", observations: ["Grafana", "Shows the latency budget per service"] },
];

export interface RankingCase {
  query: string;
  /** What the case covers. */
  covers: "exact name" | "prefix" | "accents" | "typo" | "multi-word" | "observation only" | "type";
  /** The names expected at the top, in this order. */
  top: string[];
}

export const RANKING_CASES: RankingCase[] = [
  { query: "Payments", covers: "exact name", top: ["Payments"] },
  { query: "Kafka", covers: "exact name", top: ["Kafka"] },
  { query: "payments gateway", covers: "exact name", top: ["Payments Gateway"] },
  { query: "Postgres", covers: "exact name", top: ["Postgres"] },
  { query: "recon", covers: "prefix", top: ["Payment Reconciliation"] },
  { query: "kube", covers: "prefix", top: ["Kubernetes"] },
  { query: "telemetry dash", covers: "prefix", top: ["Telemetry Dashboard"] },
  { query: "zoe", covers: "accents", top: ["Zoë Durand"] },
  { query: "jose alvarez", covers: "accents", top: ["José Álvarez"] },
  { query: "cafe", covers: "accents", top: ["Café Menu Project"] },
  { query: "resume parser", covers: "accents", top: ["Résumé Parser"] },
  { query: "naive bayes", covers: "accents", top: ["Naïve Bayes Classifier"] },
  { query: "kuberntes", covers: "typo", top: ["Kubernetes"] },
  { query: "reconciliaton", covers: "typo", top: ["Payment Reconciliation"] },
  { query: "invoice pdf", covers: "multi-word", top: ["Invoice Renderer"] },
  { query: "search latency reindex", covers: "multi-word", top: ["Incident 2024-07 Latency"] },
  { query: "expired certificate", covers: "observation only", top: ["Incident 2024-03 Outage"] },
  { query: "Zendesk", covers: "observation only", top: ["Support Tickets"] },
  { query: "Chromium", covers: "observation only", top: ["Invoice Renderer"] },
  { query: "LaunchDarkly", covers: "observation only", top: ["Feature Flags"] },
  { query: "incident", covers: "type", top: ["Incident 2024-03 Outage", "Incident 2024-07 Latency"] },
];
