import { type AuthoredEntity, entity } from "./types.js";

const team = (name: string, observations: string[], links?: [string, string][]) => entity("team", name, observations, links);

export const TEAMS: AuthoredEntity[] = [
  team("Payments Team", ["Handles card payments, refunds, the ledger and payouts to partner stores.", "Based mostly in Lisbon."]),
  team("Fulfilment Team", [
    "Builds the warehouse software: picking, packing and stock counts.",
    "Sits with operations in the Leeds depot.",
  ]),
  team("Delivery Team", ["Runs the courier app, route planning, live tracking and delivery slots."]),
  team("Catalog Team", ["Keeps product data, images, browse pages and the search box working."]),
  team("Growth Team", ["Promotions, vouchers, loyalty points, lifecycle emails and recommendations."]),
  team("Platform Team", [
    "Kubernetes clusters, the CI/CD pipeline, the API gateway and feature flags.",
    "Publishes the golden path templates.",
  ]),
  team("Data Team", ["Event pipeline, analytics warehouse, dashboards and forecasting models."]),
  team("Identity Team", ["Sign-in, shopper accounts, sessions and single sign-on for staff."]),
  team("Security Team", ["Threat modelling, pen tests, secrets management and compliance audits such as PCI DSS and SOC 2."]),
  team("Support Tools Team", ["Builds the agent console, ticket routing and the help-centre chatbot."]),
  team("Mobile Team", ["Ships the iOS and Android shopper apps every two weeks."]),
  team("SRE Team", ["On-call rotations, incident command, observability and capacity planning."]),
];
