import { type AuthoredEntity, entity } from "./types.js";

const person = (name: string, observations: string[], links?: [string, string][]) => entity("person", name, observations, links);

export const PEOPLE: AuthoredEntity[] = [
  person(
    "Priya Raman",
    ["Staff engineer.", "Owns the checkout service and the card authorisation flow."],
    [
      ["member_of", "Payments Team"],
      ["owns", "checkout-service"],
    ],
  ),
  person(
    "Tomás Ferreira",
    ["Engineering manager of the Payments Team since 2024.", "Runs the weekly reconciliation review with finance."],
    [["manages", "Payments Team"]],
  ),
  person(
    "Aisha Bello",
    ["Backend engineer; wrote most of the ledger service.", "Expert in double-entry bookkeeping."],
    [
      ["member_of", "Payments Team"],
      ["owns", "ledger-service"],
    ],
  ),
  person(
    "Jonas Weber",
    ["Handles refund disputes and chargebacks with the acquirer."],
    [
      ["member_of", "Payments Team"],
      ["owns", "refund-service"],
    ],
  ),
  person(
    "Mei Lin",
    ["Built the fraud scoring model and still tunes its thresholds every quarter."],
    [
      ["member_of", "Payments Team"],
      ["owns", "fraud-scoring"],
    ],
  ),
  person(
    "Rafael Costa",
    ["Joined in September 2026 as a graduate engineer.", "Pairs with Aisha Bello on the ledger."],
    [["member_of", "Payments Team"]],
  ),
  person(
    "Hannah Okafor",
    ["Engineering manager of the Fulfilment Team.", "Former warehouse shift lead, knows the Leeds depot floor well."],
    [["manages", "Fulfilment Team"]],
  ),
  person(
    "Dmitri Volkov",
    ["Wrote the picking algorithm that batches orders by aisle."],
    [
      ["member_of", "Fulfilment Team"],
      ["owns", "warehouse-picking"],
    ],
  ),
  person(
    "Grace Mensah",
    ["Owns stock levels and the nightly stock count job."],
    [
      ["member_of", "Fulfilment Team"],
      ["owns", "inventory-service"],
    ],
  ),
  person(
    "Lukas Schmidt",
    ["Maintains the label printers integration and the packing station screens."],
    [
      ["member_of", "Fulfilment Team"],
      ["owns", "packing-station-ui"],
    ],
  ),
  person(
    "Sofia Rossi",
    ["Tech lead of the Delivery Team.", "Designed the slot booking system that caps orders per hour."],
    [
      ["member_of", "Delivery Team"],
      ["owns", "slot-booking"],
    ],
  ),
  person(
    "Kwame Asante",
    ["Owns the route planner; an expert on vehicle routing heuristics."],
    [
      ["member_of", "Delivery Team"],
      ["owns", "route-planner"],
    ],
  ),
  person(
    "Elena Petrova",
    ["Android developer on the courier app.", "Speaks Russian and Bulgarian."],
    [
      ["member_of", "Delivery Team"],
      ["owns", "courier-app-backend"],
    ],
  ),
  person(
    "Noah Williams",
    ["Built live order tracking with map updates every ten seconds."],
    [
      ["member_of", "Delivery Team"],
      ["owns", "tracking-service"],
    ],
  ),
  person(
    "Yuki Tanaka",
    ["Tech lead of the Catalog Team.", "Maintains the product ingestion from supplier feeds."],
    [
      ["member_of", "Catalog Team"],
      ["owns", "catalog-service"],
    ],
  ),
  person(
    "Omar Haddad",
    ["Owns the search API and its relevance tuning.", "Gave a talk on synonyms for grocery queries."],
    [
      ["member_of", "Catalog Team"],
      ["owns", "search-api"],
    ],
  ),
  person(
    "Chloe Martin",
    ["Frontend engineer on browse pages and the product detail page."],
    [
      ["member_of", "Catalog Team"],
      ["owns", "web-storefront"],
    ],
  ),
  person(
    "Arjun Nair",
    ["Owns the image resizer and the product photo pipeline."],
    [
      ["member_of", "Catalog Team"],
      ["owns", "image-resizer"],
    ],
  ),
  person("Isabel García", ["Product manager for Growth.", "Wants a referral scheme before summer."], [["member_of", "Growth Team"]]),
  person(
    "Ben Carter",
    ["Owns the promotions engine and voucher codes."],
    [
      ["member_of", "Growth Team"],
      ["owns", "promotions-service"],
    ],
  ),
  person(
    "Fatima Zahra",
    ["Built the loyalty points ledger and the tier rules."],
    [
      ["member_of", "Growth Team"],
      ["owns", "loyalty-service"],
    ],
  ),
  person(
    "Liam O'Brien",
    ["Data scientist; trained the 'you may also like' model."],
    [
      ["member_of", "Growth Team"],
      ["owns", "recommendations-service"],
    ],
  ),
  person(
    "Zara Ahmed",
    ["Writes the lifecycle email journeys: welcome, win-back, abandoned basket."],
    [
      ["member_of", "Growth Team"],
      ["owns", "email-sender"],
    ],
  ),
  person("Marcus Johnson", ["Head of Platform.", "Sponsors the move from Jenkins to GitHub Actions."], [["manages", "Platform Team"]]),
  person(
    "Ingrid Larsen",
    ["Runs the Kubernetes clusters and node upgrades."],
    [
      ["member_of", "Platform Team"],
      ["owns", "kubernetes-platform"],
    ],
  ),
  person(
    "Pedro Alves",
    ["Owns the API gateway and its rate limits."],
    [
      ["member_of", "Platform Team"],
      ["owns", "api-gateway"],
    ],
  ),
  person(
    "Hyun-woo Park",
    ["Maintains the feature flag service and its SDKs."],
    [
      ["member_of", "Platform Team"],
      ["owns", "feature-flags"],
    ],
  ),
  person(
    "Olivia Brown",
    ["Keeps the build pipeline fast; cut median build time from 19 to 7 minutes."],
    [
      ["member_of", "Platform Team"],
      ["owns", "ci-pipeline"],
    ],
  ),
  person("Samuel Adeyemi", ["Manager of the Data Team.", "Chairs the metrics definitions council."], [["manages", "Data Team"]]),
  person(
    "Nina Kowalski",
    ["Owns the event pipeline from Kafka into the warehouse."],
    [
      ["member_of", "Data Team"],
      ["owns", "analytics-ingest"],
    ],
  ),
  person(
    "Ravi Shankar",
    ["Built the demand forecasting model used for stock ordering."],
    [
      ["member_of", "Data Team"],
      ["owns", "demand-forecast"],
    ],
  ),
  person(
    "Emma Davies",
    ["Analytics engineer; maintains the dbt models and the finance dashboards."],
    [
      ["member_of", "Data Team"],
      ["owns", "reporting-service"],
    ],
  ),
  person(
    "Carlos Mendes",
    ["Tech lead of the Identity Team.", "Led the passkeys rollout."],
    [
      ["member_of", "Identity Team"],
      ["owns", "auth-service"],
    ],
  ),
  person(
    "Julia Novak",
    ["Owns shopper accounts, addresses and GDPR data exports."],
    [
      ["member_of", "Identity Team"],
      ["owns", "account-service"],
    ],
  ),
  person("Ahmed Karim", ["Runs staff single sign-on through Okta and offboarding automation."], [["member_of", "Identity Team"]]),
  person(
    "Rebecca Stone",
    ["Chief information security officer.", "Signs off every penetration test report."],
    [["manages", "Security Team"]],
  ),
  person(
    "Viktor Horvath",
    ["Security engineer; owns secrets rotation in the vault."],
    [
      ["member_of", "Security Team"],
      ["owns", "secrets-vault"],
    ],
  ),
  person(
    "Leila Hosseini",
    ["Leads the PCI DSS audit each spring.", "Keeps the evidence folder for SOC 2."],
    [["member_of", "Security Team"]],
  ),
  person(
    "Daniel Kim",
    ["Built the agent console used by customer support."],
    [
      ["member_of", "Support Tools Team"],
      ["owns", "support-console"],
    ],
  ),
  person(
    "Amara Eze",
    ["Owns ticket routing rules and the help-centre chatbot."],
    [
      ["member_of", "Support Tools Team"],
      ["owns", "ticket-router"],
      ["owns", "help-chatbot"],
    ],
  ),
  person("George Papadopoulos", ["Support operations analyst; writes the macros agents use."], [["member_of", "Support Tools Team"]]),
  person(
    "Camille Dubois",
    ["Lead iOS developer on the shopper app.", "Maintains the Swift networking layer."],
    [
      ["member_of", "Mobile Team"],
      ["owns", "ios-app"],
    ],
  ),
  person(
    "Mateo Silva",
    ["Lead Android developer on the shopper app.", "Moved the app to Jetpack Compose."],
    [
      ["member_of", "Mobile Team"],
      ["owns", "android-app"],
    ],
  ),
  person("Hana Yoshida", ["Release manager for the mobile apps; runs the store submissions."], [["member_of", "Mobile Team"]]),
  person("Patrick Murphy", ["SRE lead and incident commander for most major outages in 2026."], [["manages", "SRE Team"]]),
  person(
    "Anika Sharma",
    ["Owns dashboards, alerting rules and the Datadog contract."],
    [
      ["member_of", "SRE Team"],
      ["owns", "observability-stack"],
    ],
  ),
  person(
    "Tobias Keller",
    ["Database reliability engineer; runs the Postgres clusters and their backups."],
    [
      ["member_of", "SRE Team"],
      ["owns", "orders-postgres"],
      ["owns", "payments-postgres"],
    ],
  ),
  person("Lucía Romero", ["Does capacity planning before Christmas and Black Friday."], [["member_of", "SRE Team"]]),
  person("Oliver Grant", ["Chief technology officer.", "Approves architecture decisions that cross teams."]),
  person("Sarah Whitfield", ["VP of Product.", "Sets the quarterly roadmap with the CTO."]),
  person("Kofi Boateng", ["Principal engineer; reviews designs across payments and orders."], [["member_of", "Payments Team"]]),
  person(
    "Ana Popescu",
    ["Owns the order service and the order state machine."],
    [
      ["member_of", "Fulfilment Team"],
      ["owns", "order-service"],
    ],
  ),
  person(
    "Felix Braun",
    ["Owns the cart service and the basket Redis cache."],
    [
      ["member_of", "Catalog Team"],
      ["owns", "cart-service"],
    ],
  ),
  person(
    "Maya Cohen",
    ["Owns the notification service: push, SMS and email fan-out."],
    [
      ["member_of", "Growth Team"],
      ["owns", "notification-service"],
    ],
  ),
  person(
    "Jin Wang",
    ["Owns the pricing service and the price change approvals."],
    [
      ["member_of", "Catalog Team"],
      ["owns", "pricing-service"],
    ],
  ),
  person(
    "Dev Patel",
    ["Contractor on the tax calculator, until March 2027."],
    [
      ["member_of", "Payments Team"],
      ["owns", "tax-calculator"],
    ],
  ),
  person(
    "Rosa Jiménez",
    ["Owns the partner API used by stores and brands."],
    [
      ["member_of", "Platform Team"],
      ["owns", "partner-api"],
    ],
  ),
  person(
    "Ethan Clarke",
    ["Owns the subscription service for the monthly delivery pass."],
    [
      ["member_of", "Growth Team"],
      ["owns", "subscription-service"],
    ],
  ),
  person("Nadia Rahman", ["Technical writer; keeps the runbooks and the engineering handbook tidy."]),
  person(
    "Wei Zhang",
    ["Staff engineer on the address validation service and postcode lookups."],
    [
      ["member_of", "Delivery Team"],
      ["owns", "address-validation"],
    ],
  ),
];
