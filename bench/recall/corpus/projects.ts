import { type AuthoredEntity, entity } from "./types.js";

const project = (name: string, observations: string[], links?: [string, string][]) => entity("project", name, observations, links);

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
