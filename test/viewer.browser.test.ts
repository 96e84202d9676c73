import { copyFileSync, mkdirSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import type { Browser, Page } from "playwright-core";

import { entityId } from "../src/domain/model/ids.js";
import { hashApiKey } from "../src/http/auth/apiKeyVerifier.js";
import { browserAvailable, launchBrowser } from "./support/browser.js";
import { viewerBuildOnce } from "./support/build.js";
import { connectClient, type McpTestClient, ok, startTestServer, type TestServer, uniqueWorkspace } from "./support/harness.js";
import { partitionRows, rawTable } from "./support/rawRows.js";

/**
 * The viewer in a real browser (issue #17): headless Debian Chromium driven by playwright-core, against the real local
 * server with API keys on, over real Azurite. One browser for the file.
 */
const KEYS = { writer: "viewer-writer-key-0123456789", reader: "viewer-reader-key-0123456789" };
const XSS_NAME = "<img src=x onerror=alert(1)>";
const XSS_OBSERVATION = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
/** A superseded observation and its replacement, which carries markup: "Show superseded" must render both as text. */
const OLD_RETENTION = "retention: 30 days";
const NEW_RETENTION = "retention: <b>90</b> days";

/** More of a team's memory around them, so the graph (and the screenshot the README shows) has some shape. */
const CONTEXT = ["Payments Team", "Invoice API", "Use Postgres", "Platform Team", "Reporting Job", "Retry Policy"];

const run = browserAvailable() ? describe : describe.skip;
const workspace = uniqueWorkspace("view");
let server: TestServer;
let writer: McpTestClient;
let browser: Browser;

beforeAll(async () => {
  if (!browserAvailable()) return;
  await viewerBuildOnce();
  const entries = [
    { id: "writer", sha256: hashApiKey(KEYS.writer), workspaces: [workspace], access: "write" },
    { id: "reader", sha256: hashApiKey(KEYS.reader), workspaces: [workspace], access: "read" },
  ];
  server = await startTestServer({ env: { MEMORY_AUTH: "keys", MEMORY_API_KEYS: JSON.stringify(entries) } });
  writer = await connectClient(server.url, `/api/workspaces/${workspace}/mcp`, { headers: { authorization: `Bearer ${KEYS.writer}` } });
  ok(
    await writer.call("create_entities", {
      entities: [
        { name: "Billing Service", entityType: "service", observations: ["Owns the invoices table", "Deployed every Tuesday"] },
        { name: "Ledger DB", entityType: "database", observations: ["Postgres 16"] },
        { name: "Alice", entityType: "person", observations: ["On call for billing"] },
        { name: XSS_NAME, entityType: "attack", observations: [XSS_OBSERVATION] },
        ...CONTEXT.map((name, i) => ({ name, entityType: ["team", "service", "decision"][i % 3]!, observations: [`About ${name}`] })),
        { name: "Retention Policy", entityType: "decision", observations: [OLD_RETENTION, NEW_RETENTION] },
      ],
    }),
  );
  // Superseded as supersede_observation leaves the row (docs/history.md#two-times), before anything reads the workspace.
  const table = rawTable();
  const old = (await partitionRows(table, workspace, { only: ["observation"] })).find(
    (row) => row.entityId === entityId(workspace, "Retention Policy") && row.content === OLD_RETENTION,
  )!;
  await table.updateEntity(
    { partitionKey: workspace, rowKey: old.rowKey, validTo: "2026-01-01T00:00:00.000Z", supersededBy: NEW_RETENTION },
    "Merge",
  );
  ok(
    await writer.call("create_relations", {
      relations: [
        { from: "Billing Service", to: "Ledger DB", relationType: "writes_to" },
        { from: "Alice", to: "Billing Service", relationType: "maintains" },
        { from: XSS_NAME, to: "Billing Service", relationType: "targets" },
        ...CONTEXT.map((name, i) => ({ from: name, to: i % 2 === 0 ? "Billing Service" : "Ledger DB", relationType: "depends_on" })),
      ],
    }),
  );
  ok(await writer.call("tag_entity", { entityName: "Billing Service", tagNames: ["critical"] }));
  ok(
    await writer.call("tag_observation", {
      entityName: "Billing Service",
      observationContent: "Owns the invoices table",
      tagNames: ["source:slack"],
    }),
  );
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await writer?.close();
  await server?.close();
});

/** A page that records every dialog, console error and page error, so a test can assert that no script of the data ran. */
async function watchedPage(): Promise<{ page: Page; incidents: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const incidents: string[] = [];
  page.on("dialog", (dialog) => {
    incidents.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on("pageerror", (error) => incidents.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") incidents.push(`console: ${message.text()}`);
  });
  return { page, incidents };
}

/** Opens the workspace's page the way a person does: it asks for a key, which is exchanged for the session cookie. */
async function signIn(page: Page, key: string): Promise<void> {
  const refused = await page.goto(`${server.url}/api/workspaces/${workspace}/view`);
  expect(refused?.status()).toBe(401);
  await page.waitForSelector("body[data-state=signin]");
  await page.fill("#signin-key", key);
  await page.click("#signin-form button");
  await page.waitForSelector("body[data-state=ready]");
}

/** Signs in, then watches from there on: the refusals before signing in are expected and logged by Chromium. */
async function openSignedIn(key: string): Promise<{ page: Page; incidents: string[] }> {
  const watched = await watchedPage();
  await signIn(watched.page, key);
  watched.incidents.length = 0;
  return watched;
}

run("the viewer in Chromium", () => {
  test("sign in with an API key, search, click a hit: the details panel shows its observations and tags", async () => {
    const { page, incidents } = await openSignedIn(KEYS.reader);
    expect(await page.textContent("#summary")).toBe(`${5 + CONTEXT.length} entities · ${3 + CONTEXT.length} relations`);

    await page.fill("#search", "billing");
    await page.press("#search", "Enter");
    const hit = page.locator("#results button", { hasText: "Billing Service" });
    await hit.click();
    const details = page.locator("#details");
    await details.locator("h2", { hasText: "History" }).waitFor();
    await expect(details.locator("h3").textContent()).resolves.toBe("Billing Service");
    const observations = await details.locator("li.observation .text").allTextContents();
    expect(observations).toEqual(["Owns the invoices table", "Deployed every Tuesday"]);
    expect(await details.locator(".observation .tag").allTextContents()).toEqual(["source:slack"]);
    expect(await details.locator("> div .tag").allTextContents()).toEqual(["critical"]);
    expect(await details.textContent()).toContain("Created by key:writer");
    expect(await details.textContent()).toContain("writes_to");

    mkdirSync("test-artifacts", { recursive: true });
    await page.screenshot({ path: "test-artifacts/viewer.png" });
    if (process.env.VIEWER_SCREENSHOT_TO_DOCS === "1") copyFileSync("test-artifacts/viewer.png", "docs/images/viewer.png");
    expect(incidents).toEqual([]);
    await page.context().close();
  });

  test("an entity named <img src=x onerror=alert(1)> renders as text, and no script of the data runs", async () => {
    const { page, incidents } = await openSignedIn(KEYS.reader);
    await page.fill("#search", "img");
    await page.press("#search", "Enter");
    await page.locator("#results button", { hasText: XSS_NAME }).click();
    const details = page.locator("#details");
    await details.locator("h2", { hasText: "History" }).waitFor();
    expect(await details.locator("h3").textContent()).toBe(XSS_NAME);
    expect(await details.locator("li.observation .text").allTextContents()).toEqual([XSS_OBSERVATION]);
    // The markup stayed text: no element was made from it anywhere on the page, and nothing it carries ran.
    expect(await page.locator("img, body script").count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(incidents).toEqual([]);
    await page.context().close();
  });

  test("show superseded: the panel reads again with includeSuperseded, strikes what is no longer true, all as text", async () => {
    const { page, incidents } = await openSignedIn(KEYS.reader);
    await page.fill("#search", "Retention");
    await page.press("#search", "Enter");
    await page.locator("#results button", { hasText: "Retention Policy" }).click();
    const details = page.locator("#details");
    await details.locator("h2", { hasText: "History" }).waitFor();
    expect(await details.locator("li.observation .text").allTextContents()).toEqual([NEW_RETENTION]);

    await page.check("#show-superseded");
    await details.locator("li.observation.superseded").waitFor();
    expect(await details.locator("li.observation .text").allTextContents()).toEqual([OLD_RETENTION, NEW_RETENTION]);
    expect(await details.locator("li.observation.superseded s.text").textContent()).toBe(OLD_RETENTION);
    expect(await details.locator("li.observation.superseded .status").textContent()).toBe(` (superseded, by: ${NEW_RETENTION})`);
    expect(await page.locator("#details b").count()).toBe(0);

    await page.uncheck("#show-superseded");
    await details.locator("li.observation.superseded").waitFor({ state: "detached" });
    expect(await details.locator("li.observation .text").allTextContents()).toEqual([NEW_RETENTION]);
    expect(incidents).toEqual([]);
    await page.context().close();
  });

  test("hits marked in the graph, distinct type colours, a path shown, readable times, and the time slider's graph as it was", async () => {
    // A time between the seeded graph and one more entity, a second clear of both (the slider's stops are a second apart here).
    await sleep(1100);
    const before = Date.now();
    await sleep(1100);
    ok(
      await writer.call("create_entities", { entities: [{ name: "Late Arrival", entityType: "service", observations: ["Added later"] }] }),
    );
    const { page, incidents } = await openSignedIn(KEYS.reader);
    const drawn = () => page.locator("#graph-nodes li").evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.name));
    expect(await drawn()).toContain("Late Arrival");

    // Search hits: marked in the graph (#graph-nodes mirrors cytoscape's classes), exactly the hits listed.
    await page.fill("#search", "billing");
    await page.press("#search", "Enter");
    await page.locator('#graph-nodes li.hit[data-name="Billing Service"]').waitFor();
    const hits = await page.locator("#results button").allTextContents();
    const marked = await page
      .locator("#graph-nodes li.hit")
      .evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.name));
    expect(new Set(marked)).toEqual(new Set(hits));
    expect(await page.evaluate(() => getComputedStyle(document.getElementById("graph-nodes")!).position)).toBe("absolute");

    // Type colours: the seeded types (service, database, decision, team, person, attack) each have their own.
    const colours = await page.locator("#legend .swatch").evaluateAll((dots) => dots.map((dot) => getComputedStyle(dot).backgroundColor));
    expect(colours.length).toBe(6);
    expect(new Set(colours).size).toBe(colours.length);

    // A path: its nodes marked, the result as one line.
    await page.fill("#path-from", "Alice");
    await page.fill("#path-to", "Ledger DB");
    await page.click("#path-show");
    await page.locator('#graph-nodes li.path[data-name="Ledger DB"]').waitFor();
    const onPath = await page
      .locator("#graph-nodes li.path")
      .evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.name));
    expect(onPath.sort()).toEqual(["Alice", "Billing Service", "Ledger DB"]);
    expect(await page.textContent("#path-result")).toBe("Alice —maintains→ Billing Service —writes_to→ Ledger DB");

    // Readable times: the details panel's creation as a local date and time, and how long ago; the ISO time kept in the element.
    await page.locator("#results button", { hasText: "Billing Service" }).click();
    const created = page.locator("#details .provenance time").first();
    await created.waitFor();
    expect(await created.textContent()).toMatch(/^\d{1,2} \w{3,4} \d{4}, \d{2}:\d{2} \((now|\d+ seconds? ago|1 minute ago)\)$/);
    expect(await created.getAttribute("datetime")).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(await page.locator('#details .provenance time:has-text("T")').count()).toBe(0);

    // The time slider: the graph as it was before "Late Arrival", then now again.
    await page.locator("#time-slider").evaluate((slider, at) => {
      (slider as HTMLInputElement).value = String(at);
      slider.dispatchEvent(new Event("input", { bubbles: true }));
    }, before);
    await page.waitForSelector("body[data-time=past]");
    expect(await drawn()).not.toContain("Late Arrival");
    expect(await drawn()).toContain("Billing Service");
    expect(await page.textContent("#summary")).toBe(`${5 + CONTEXT.length} entities · ${3 + CONTEXT.length} relations`);
    expect(await page.textContent("#time-label")).toMatch(/^\d{1,2} \w{3,4} \d{4}, \d{2}:\d{2} \((now|.+ ago)\)$/);
    await page.click("#time-now");
    await page.waitForSelector("body[data-time=now]");
    expect(await drawn()).toContain("Late Arrival");
    expect(await page.textContent("#time-label")).toBe("now");
    expect(await page.textContent("#error")).toBe("");
    expect(incidents).toEqual([]);
    await page.context().close();
  });
});
