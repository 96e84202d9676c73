import { type AuthoredEntity, entity } from "./types.js";

const customer = (name: string, observations: string[], links?: [string, string][]) => entity("customer", name, observations, links);

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
