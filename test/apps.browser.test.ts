import { copyFileSync, mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import { afterAll, afterEach, beforeAll, describe, expect, test } from "@jest/globals";
import type { Browser, FrameLocator, Locator } from "playwright-core";

import { entityId } from "../src/domain/model/ids.js";
import { hashApiKey } from "../src/http/auth/apiKeyVerifier.js";
import { APP_RESOURCE_URI } from "../src/mcp/appShapes.js";
import { type AppHost, type OpenedApp, startAppHost } from "./support/appHost.js";
import { browserAvailable, launchBrowser } from "./support/browser.js";
import { viewerBuildOnce } from "./support/build.js";
import { connectClient, type McpTestClient, ok, startTestServer, type TestServer, uniqueWorkspace } from "./support/harness.js";
import { partitionRows, type RawRow, rawTable } from "./support/rawRows.js";

/**
 * The MCP Apps (issue #26, docs/apps.md) inside a host: test/support/appHost.ts runs the extension SDK's AppBridge in headless
 * Chromium and renders the server's one `ui://` resource in a sandboxed iframe, against the real local server with API keys
 * on, over real Azurite. Each app is driven the way a person drives it, and what it did is checked against storage.
 */
const KEYS = { writer: "apps-writer-key-0123456789", reader: "apps-reader-key-0123456789" };
const WORKSPACES = {
  graph: uniqueWorkspace("appg"),
  duplicates: uniqueWorkspace("appd"),
  timeline: uniqueWorkspace("appt"),
  readOnly: uniqueWorkspace("appr"),
  xss: uniqueWorkspace("appx"),
};
/** One payload per field, each naming its field if it ever ran. */
const XSS = {
  name: `<img src=x onerror="window.__pwned='name'">`,
  entityType: `<script>window.__pwned='type'</script>`,
  observation: `<img src=x onerror="window.__pwned='observation'"><b>bold</b>`,
  relationType: `<svg onload="window.__pwned='relation'">`,
  tag: `<iframe srcdoc="<script>parent.__pwned='tag'</script>">`,
};

const run = browserAvailable() ? describe : describe.skip;
const table = rawTable();
let server: TestServer;
let writer: McpTestClient;
let browser: Browser;
const hosts: AppHost[] = [];

/** A host for one key on one workspace's bound route; torn down after each test whatever happened. */
async function hostFor(key: keyof typeof KEYS, workspace: string): Promise<AppHost> {
  const client = await connectClient(server.url, `/api/workspaces/${workspace}/mcp`, {
    headers: { authorization: `Bearer ${KEYS[key]}` },
  });
  const host = await startAppHost({ browser, client });
  hosts.push(host);
  return host;
}

beforeAll(async () => {
  if (!browserAvailable()) return;
  // The resource's HTML is the viewer's app build (dist/viewer/mcp-app.html), which the server reads when asked.
  await viewerBuildOnce();
  const all = Object.values(WORKSPACES);
  server = await startTestServer({
    env: {
      MEMORY_AUTH: "keys",
      MEMORY_API_KEYS: JSON.stringify([
        { id: "writer", sha256: hashApiKey(KEYS.writer), workspaces: all, access: "write" },
        { id: "reader", sha256: hashApiKey(KEYS.reader), workspaces: all, access: "read" },
      ]),
    },
  });
  writer = await connectClient(server.url, "/api/mcp", { headers: { authorization: `Bearer ${KEYS.writer}` } });
  await seed();
  browser = await launchBrowser();
}, 120_000);

afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.teardown()));
});

afterAll(async () => {
  await browser?.close();
  await writer?.close();
  await server?.close();
});

const call = async (name: string, workspaceName: string, args: Record<string, unknown>) =>
  ok(await writer.call(name, { workspaceName, ...args }));

async function seed(): Promise<void> {
  const { graph, duplicates, timeline, readOnly, xss } = WORKSPACES;
  // The graph: Billing Service's neighbourhood, and Backup Job one step further, behind Ledger DB.
  await call("create_entities", graph, {
    entities: [
      { name: "Billing Service", entityType: "service", observations: ["Owns the invoices table", "Deployed every Tuesday"] },
      { name: "Ledger DB", entityType: "database", observations: ["Postgres 16", "Backed up nightly"] },
      { name: "Alice", entityType: "person", observations: ["On call for billing"] },
      { name: "Invoice API", entityType: "service", observations: ["Public REST API"] },
      { name: "Backup Job", entityType: "job", observations: ["Runs at 02:00"] },
      { name: "Unrelated Wiki", entityType: "document", observations: ["Nobody reads it"] },
    ],
  });
  await call("create_relations", graph, {
    relations: [
      { from: "Billing Service", to: "Ledger DB", relationType: "writes_to" },
      { from: "Alice", to: "Billing Service", relationType: "maintains" },
      { from: "Invoice API", to: "Billing Service", relationType: "depends_on" },
      { from: "Backup Job", to: "Ledger DB", relationType: "backs_up" },
    ],
  });
  // Duplicates: one pair to merge, one to reject (pairs detect_duplicate_entities finds: test/support/duplicateCorpus.ts).
  for (const workspace of [duplicates, readOnly]) {
    await call("create_entities", workspace, {
      entities: [
        { name: "Acme Corporation", entityType: "organization", observations: ["Headquartered in Berlin"] },
        { name: "Acme Corp", entityType: "organization", observations: ["Makes widgets", "Founded 1999"] },
        { name: "Widget Line", entityType: "product", observations: ["The main product"] },
        { name: "Jonathan Reyes", entityType: "person", observations: ["Works in sales"] },
        { name: "Jonathon Reyes", entityType: "person", observations: ["Works in support"] },
      ],
    });
    await call("create_relations", workspace, { relations: [{ from: "Acme Corp", to: "Widget Line", relationType: "makes" }] });
  }
  // The timeline: created, then changed three times.
  await call("create_entities", timeline, {
    entities: [{ name: "Retry Policy", entityType: "decision", observations: ["max 3 retries"] }],
  });
  await call("add_observations", timeline, { observations: [{ entityName: "Retry Policy", contents: ["backoff 2s"] }] });
  await call("delete_observations", timeline, { deletions: [{ entityName: "Retry Policy", observations: ["max 3 retries"] }] });
  await call("add_observations", timeline, { observations: [{ entityName: "Retry Policy", contents: ["max 5 retries"] }] });
  // Markup in every field an app shows: a name, a type, an observation, a relation type and a tag; and a duplicate pair around it.
  await call("create_entities", xss, {
    entities: [
      { name: XSS.name, entityType: XSS.entityType, observations: [XSS.observation] },
      { name: "Acme Corporation", entityType: XSS.entityType, observations: [XSS.observation] },
      { name: "Acme Corp", entityType: XSS.entityType, observations: ["Makes widgets"] },
    ],
  });
  await call("create_relations", xss, {
    relations: [
      { from: XSS.name, to: "Acme Corp", relationType: XSS.relationType },
      { from: "Acme Corporation", to: XSS.name, relationType: XSS.relationType },
    ],
  });
  await call("tag_entity", xss, { entityName: XSS.name, tagNames: [XSS.tag] });
  await call("tag_entity", xss, { entityName: "Acme Corp", tagNames: [XSS.tag] });
}

/** A workspace's current graph as storage holds it: entities with their current observations, and the relations. */
async function stored(workspace: string) {
  const rows = await partitionRows(table, workspace, { only: ["entity", "observation", "relation"] });
  const now = new Date().toISOString();
  const current = (row: RawRow) => !row.validTo || String(row.validTo) > now;
  const entities = new Map<string, { id: string; entityType: string; observations: string[] }>();
  for (const row of rows.filter((candidate) => candidate.kind === "entity")) {
    const id = entityId(workspace, String(row.name));
    const observations = rows
      .filter((candidate) => candidate.kind === "observation" && candidate.entityId === id && current(candidate))
      .map((candidate) => String(candidate.content))
      .sort();
    entities.set(String(row.name), { id, entityType: String(row.entityType), observations });
  }
  const relations = rows
    .filter((row) => row.kind === "relation" && current(row))
    .map((row) => ({ from: String(row.fromName), to: String(row.toName), relationType: String(row.relationType) }));
  const neighbours = (name: string) =>
    relations.flatMap((relation) => (relation.from === name ? [relation.to] : relation.to === name ? [relation.from] : []));
  return { entities, relations, neighbours };
}

/** The feed's events as stored, in key order; `committed` is storage's own time for the row (the feed's order). */
async function storedEvents(workspace: string): Promise<{ principal: string; tool: string; committed: number }[]> {
  const rows = await partitionRows(table, workspace, { only: ["event"] });
  return rows.map((row) => ({
    principal: String(row.principal),
    tool: String(row.tool),
    committed: new Date(String(row.timestamp)).getTime(),
  }));
}

/** Every row of a workspace but the registry row (reads may claim the index generation there), keyed with its ETag. */
async function snapshot(workspace: string): Promise<string[]> {
  return (await partitionRows(table, workspace, ["workspace"])).map((row) => `${row.rowKey} ${row.etag}`).sort();
}

/** The names of the nodes the graph draws, from its screen-reader list (kept in step with the canvas). */
const drawn = async (frame: FrameLocator) =>
  (await frame.locator("#graph-nodes li[data-name]").evaluateAll((items) => items.map((item) => item.getAttribute("data-name")!))).sort();

async function screenshot(app: OpenedApp, name: string): Promise<void> {
  mkdirSync("test-artifacts", { recursive: true });
  // The app as a chat shows it: down to the bottom of its content, not the empty rest of the host's page.
  const bottom = await (
    await app.appFrame()
  ).evaluate(() => Math.max(...[...document.body.children].map((element) => element.getBoundingClientRect().bottom)));
  const { width, height } = app.page.viewportSize()!;
  await app.page.screenshot({
    path: `test-artifacts/${name}.png`,
    clip: { x: 0, y: 0, width, height: Math.min(height, Math.ceil(bottom) + 8) },
  });
  if (process.env.MEMORY_SCREENSHOTS === "1") copyFileSync(`test-artifacts/${name}.png`, `docs/images/${name}.png`);
}

/** The markup stayed text: no element was made from any payload, nothing it carries ran, no dialog opened. */
async function assertInert(app: OpenedApp): Promise<void> {
  const frame = await app.appFrame();
  const made = await frame.evaluate(() => ({
    elements: [...document.querySelectorAll("img, iframe")].map((element) => element.outerHTML),
    handlers: [...document.querySelectorAll("*")].flatMap((element) =>
      element.getAttributeNames().filter((attribute) => attribute.startsWith("on")),
    ),
    pwned: (window as unknown as { __pwned?: unknown }).__pwned,
  }));
  expect(made).toEqual({ elements: [], handlers: [], pwned: undefined });
  expect(await app.page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
  expect(app.incidents).toEqual([]);
}

/** Opens an entity's details in the graph app the way a person does: search, then its hit. */
async function openDetails(frame: FrameLocator, query: string, name: string): Promise<Locator> {
  await frame.locator("#search").fill(query);
  await frame.locator("#search").press("Enter");
  await frame.locator("#results button", { hasText: name }).first().click();
  const details = frame.locator("#details");
  await details.locator("h3", { hasText: name }).waitFor();
  return details;
}

run("the MCP Apps in a host, in Chromium", () => {
  test("graph: opens on an entity with its neighbourhood, shows a neighbour's details, expands it; each as storage holds it", async () => {
    const workspace = WORKSPACES.graph;
    const host = await hostFor("reader", workspace);
    const app = await host.open("show_memory_graph", { entityName: "Billing Service" });
    const { frame } = app;
    expect(await frame.locator("body").getAttribute("data-app")).toBe("graph");
    let graph = await stored(workspace);
    // Drawn: the entity and its neighbours in storage, no more (Backup Job is two steps away, the wiki unconnected).
    expect(await drawn(frame)).toEqual([...new Set(["Billing Service", ...graph.neighbours("Billing Service")])].sort());
    expect(await drawn(frame)).not.toContain("Backup Job");

    const details = await openDetails(frame, "Ledger", "Ledger DB");
    const observations = await details.locator("li.observation .text").allTextContents();
    expect(observations.sort()).toEqual(graph.entities.get("Ledger DB")!.observations);
    expect(app.calls.map((made) => made.name)).toContain("app_entity_details");

    await details.locator("button.expand").click();
    await frame.locator('#graph-nodes li[data-name="Backup Job"]').waitFor({ state: "attached" });
    graph = await stored(workspace);
    const expected = new Set(["Billing Service", ...graph.neighbours("Billing Service"), "Ledger DB", ...graph.neighbours("Ledger DB")]);
    expect(await drawn(frame)).toEqual([...expected].sort());
    expect(app.calls.find((made) => made.name === "app_expand")?.args).toMatchObject({ entityName: "Ledger DB" });
    expect(app.calls.filter((made) => made.isError)).toEqual([]);
    await screenshot(app, "app-graph");
    expect(app.incidents).toEqual([]);
  });

  test("duplicates: a planted pair is merged after a dry run and a confirmation; another is rejected and never proposed again", async () => {
    const workspace = WORKSPACES.duplicates;
    const host = await hostFor("writer", workspace);
    const app = await host.open("review_duplicates", {});
    const { frame } = app;
    expect(await frame.locator("body").getAttribute("data-app")).toBe("duplicates");
    const pairOf = (one: string, other: string) =>
      frame.locator(`#pairs > li.pair[data-a="${one}"][data-b="${other}"], #pairs > li.pair[data-a="${other}"][data-b="${one}"]`);
    const merge = pairOf("Acme Corporation", "Acme Corp");
    const reject = pairOf("Jonathan Reyes", "Jonathon Reyes");
    await merge.waitFor();
    await reject.waitFor();
    // Side by side: each side's observations as storage holds them.
    const before = await stored(workspace);
    const sides = merge.locator(".side");
    for (const index of [0, 1]) {
      const name = (await sides.nth(index).locator("h3").textContent())!;
      expect((await sides.nth(index).locator(".observation").allTextContents()).map((text) => text.trim()).sort()).toEqual(
        before.entities.get(name)!.observations,
      );
    }
    await screenshot(app, "app-duplicates");

    // Keep Acme Corporation: pick it, preview (a dry run, which writes nothing), then confirm.
    const keep = (await merge.getAttribute("data-a")) === "Acme Corporation" ? "a" : "b";
    await merge.locator(`input[type=radio][value=${keep}]`).check();
    expect(await merge.locator("button.confirm").isDisabled()).toBe(true);
    const untouched = await snapshot(workspace);
    await merge.locator("button.preview").click();
    await merge.locator(".preview-result").filter({ hasText: /\S/ }).waitFor();
    await app.waitForCall("merge_entities", (made) => made.args.dryRun === true);
    await expect(merge.locator("button.confirm").isEnabled()).resolves.toBe(true);
    expect(app.calls.find((made) => made.name === "merge_entities")?.args).toMatchObject({
      target: "Acme Corporation",
      sources: ["Acme Corp"],
      dryRun: true,
    });
    expect(await snapshot(workspace)).toEqual(untouched);
    await merge.locator("button.confirm").click();
    await merge.waitFor({ state: "detached" });
    expect(await app.waitForCall("merge_entities", (made) => made.args.confirm === true)).toMatchObject({ isError: false });

    const after = await stored(workspace);
    expect(after.entities.has("Acme Corp")).toBe(false);
    expect(after.entities.get("Acme Corporation")!.observations).toEqual(
      [...before.entities.get("Acme Corporation")!.observations, ...before.entities.get("Acme Corp")!.observations].sort(),
    );
    expect(after.relations).toContainEqual({ from: "Acme Corporation", to: "Widget Line", relationType: "makes" });
    expect(await storedEvents(workspace)).toContainEqual(expect.objectContaining({ tool: "merge_entities", principal: "key:writer" }));

    // Reject the other pair: gone from the list, and from detection afterwards, with the rejection in the feed.
    await reject.locator("button.reject").click();
    await reject.waitFor({ state: "detached" });
    expect(await app.waitForCall("reject_duplicate_pair")).toMatchObject({ isError: false });
    const detected = ok<{ pairs: { a: { name: string }; b: { name: string } }[] }>(
      await writer.call("detect_duplicate_entities", { workspaceName: workspace }),
    );
    expect(detected.pairs.map((pair) => [pair.a.name, pair.b.name].sort())).not.toContainEqual(["Jonathan Reyes", "Jonathon Reyes"]);
    expect(await storedEvents(workspace)).toContainEqual(
      expect.objectContaining({ tool: "reject_duplicate_pair", principal: "key:writer" }),
    );
    expect(app.calls.filter((made) => made.isError)).toEqual([]);
    expect(app.incidents).toEqual([]);
  });

  test("timeline: an entity changed three times; view an old state, restore it after confirming; storage holds that state", async () => {
    const workspace = WORKSPACES.timeline;
    const host = await hostFor("writer", workspace);
    const app = await host.open("show_entity_timeline", { entityName: "Retry Policy" });
    const { frame } = app;
    expect(await frame.locator("body").getAttribute("data-app")).toBe("timeline");
    const events = frame.locator("#events > li.event");
    // Its creation and three changes, newest first, as the feed holds them.
    const feed = (await storedEvents(workspace)).map((event) => event.committed);
    expect(await events.count()).toBe(4);
    const shown = await events.evaluateAll((items) => items.map((item) => item.getAttribute("data-at")!));
    expect(shown.map((at) => new Date(at).getTime())).toEqual([...feed].sort((a, b) => b - a));
    expect(await events.first().locator(".who").textContent()).toContain("key:writer");

    // The third newest: after "backoff 2s" was added, before "max 3 retries" was deleted.
    const old = events.nth(2);
    await old.locator("button.view").click();
    const state = frame.locator("#state");
    await state.filter({ hasText: "backoff 2s" }).waitFor();
    expect(await state.textContent()).toContain("max 3 retries");
    expect(await state.textContent()).not.toContain("max 5 retries");
    expect((await stored(workspace)).entities.get("Retry Policy")!.observations).toEqual(["backoff 2s", "max 5 retries"]);
    await screenshot(app, "app-timeline");

    await old.locator("button.restore").click();
    await frame.locator("button.confirm-restore").click();
    expect(await app.waitForCall("restore_entity")).toMatchObject({
      isError: false,
      args: { entityName: "Retry Policy", asOf: shown[2], rollBack: true },
    });
    expect((await stored(workspace)).entities.get("Retry Policy")!.observations).toEqual(["backoff 2s", "max 3 retries"]);
    const last = (await storedEvents(workspace)).at(-1);
    expect(last).toMatchObject({ tool: "restore_entity", principal: "key:writer" });
    expect(app.incidents).toEqual([]);
  });
});

run("the MCP Apps' security, in Chromium", () => {
  test("a read-only key: no merge button, and a merge forced from inside the frame is refused by the server, storage unchanged", async () => {
    const workspace = WORKSPACES.readOnly;
    const host = await hostFor("reader", workspace);
    const honest = await host.open("review_duplicates", {});
    const pair = honest.frame.locator("#pairs > li.pair").first();
    await pair.waitFor();
    expect((honest.result.structuredContent as { tools: string[] }).tools).not.toContain("merge_entities");
    expect(await honest.frame.locator("button.preview, button.confirm, button.reject").count()).toBe(0);

    // A host that lies to its app (or an app that ignores what it was told): the write buttons appear, the server says no.
    const untouched = await snapshot(workspace);
    const tampered = await host.open(
      "review_duplicates",
      {},
      {
        result: (result) => {
          const content = result.structuredContent as { tools: string[] };
          const structuredContent = { ...content, tools: [...content.tools, "merge_entities", "reject_duplicate_pair"] };
          return { ...result, structuredContent, content: [{ type: "text", text: JSON.stringify(structuredContent) }] };
        },
      },
    );
    const forced = tampered.frame.locator("#pairs > li.pair").first();
    await forced.locator("input[type=radio][value=a]").check();
    await forced.locator("button.preview").click();
    const refused = await tampered.waitForCall("merge_entities");
    await tampered.frame
      .locator("#error")
      .filter({ hasText: /read-only/ })
      .waitFor();
    expect(refused).toMatchObject({ isError: true });
    expect(refused?.refusedByHost).toBeUndefined();
    expect(refused?.text).toContain("read-only access");
    const logged = server.logs.filter((line) => line.tool === "merge_entities" && line.workspace === workspace);
    expect(logged.map((line) => line.outcome)).toEqual(["ForbiddenError"]);

    // The same through the bridge itself: a raw tools/call posted from the frame, as any script in it could.
    const frame = await tampered.appFrame();
    const answer = await frame.evaluate(
      ({ a, b }) =>
        new Promise<{ isError?: boolean; text?: string }>((resolve) => {
          window.addEventListener(
            "message",
            (event: MessageEvent<{ id?: unknown; result?: { isError?: boolean; content?: { text?: string }[] } }>) => {
              if (event.data?.id === "forced-reject")
                resolve({ isError: event.data.result?.isError, text: event.data.result?.content?.[0]?.text });
            },
          );
          window.parent.postMessage(
            { jsonrpc: "2.0", id: "forced-reject", method: "tools/call", params: { name: "reject_duplicate_pair", arguments: { a, b } } },
            "*",
          );
        }),
      { a: "Jonathan Reyes", b: "Jonathon Reyes" },
    );
    expect(answer.isError).toBe(true);
    expect(answer.text).toContain("read-only access");
    expect(await snapshot(workspace)).toEqual(untouched);
  });

  test("app-only tools are listed with visibility ['app'] and left out of the host's model-facing list", async () => {
    const host = await hostFor("writer", WORKSPACES.graph);
    const appOnly = ["app_expand", "app_filter", "app_entity_details"];
    for (const name of appOnly) {
      const listed = host.tools.find((tool) => tool.name === name);
      expect(listed?._meta).toMatchObject({ ui: { resourceUri: APP_RESOURCE_URI, visibility: ["app"] } });
    }
    const modelFacing = host.modelTools.map((tool) => tool.name);
    for (const name of appOnly) expect(modelFacing).not.toContain(name);
    for (const name of ["show_memory_graph", "review_duplicates", "show_entity_timeline"]) {
      expect(modelFacing).toContain(name);
      expect(host.tools.find((tool) => tool.name === name)?._meta).toMatchObject({
        ui: { resourceUri: APP_RESOURCE_URI },
        "ui/resourceUri": APP_RESOURCE_URI,
      });
    }
    // What is left is every other tool: the host hides only what the server marked.
    expect(host.tools.length - host.modelTools.length).toBe(appOnly.length);
  });

  test("markup in a name, a type, an observation, a relation type and a tag renders as text in every app", async () => {
    const workspace = WORKSPACES.xss;
    const host = await hostFor("writer", workspace);

    const graph = await host.open("show_memory_graph", { entityName: XSS.name });
    expect(await drawn(graph.frame)).toContain(XSS.name);
    const details = await openDetails(graph.frame, "img", XSS.name);
    expect(await details.locator("h3").textContent()).toBe(XSS.name);
    expect(await details.locator("li.observation .text").allTextContents()).toEqual([XSS.observation]);
    const panel = (await details.textContent())!;
    for (const text of [XSS.entityType, XSS.relationType, XSS.tag]) expect(panel).toContain(text);
    await assertInert(graph);

    const duplicates = await host.open("review_duplicates", {});
    const pair = duplicates.frame.locator("#pairs > li.pair").first();
    await pair.waitFor();
    const pairText = (await pair.textContent())!;
    for (const text of [XSS.name, XSS.entityType, XSS.observation, XSS.relationType]) expect(pairText).toContain(text);
    await assertInert(duplicates);

    const timeline = await host.open("show_entity_timeline", { entityName: XSS.name });
    const first = timeline.frame.locator("#events > li.event").last();
    expect(await first.textContent()).toContain(XSS.name);
    await first.locator("button.view").click();
    await timeline.frame.locator("#state").filter({ hasText: XSS.observation }).waitFor();
    expect(await timeline.frame.locator("#state").textContent()).toContain(XSS.entityType);
    await assertInert(timeline);
  });

  test("the CSP forbids external loads: the app's document carries it, a fetch and an image to another local port never leave", async () => {
    let hits = 0;
    const listener: Server = createServer((_request, response) => {
      hits += 1;
      response.writeHead(204).end();
    });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    try {
      const probe = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/probe`;
      const host = await hostFor("reader", WORKSPACES.graph);
      const app = await host.open("show_memory_graph", { entityName: "Billing Service" });
      // The resource declares no domains, and its HTML names nothing to load: one document, its script and style inline.
      expect(app.resource.mimeType).toBe("text/html;profile=mcp-app");
      expect(app.resource._meta?.ui?.csp).toEqual({ connectDomains: [], resourceDomains: [] });
      // Its markup and style, with the script's text left out (code may spell "src=" without loading anything):
      // every address in them is inline data or a fragment, and no style imports or fetches anything.
      const html = app.resource.text;
      const markup = html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, "<script></script>");
      expect(markup).not.toMatch(/<script[^>]*\ssrc\s*=/i);
      const addresses = [...markup.matchAll(/\s(?:src|href|action|srcset|poster|data)\s*=\s*["']?([^"'\s>]*)/gi)].map((found) => found[1]!);
      expect(addresses.filter((address) => !/^(data:|#)/.test(address))).toEqual([]);
      const styles = [...markup.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/gi)].map((found) => found[1]!).join("\n");
      expect([...styles.matchAll(/url\(\s*["']?([^"')]*)/gi)].map((found) => found[1]!).filter((url) => !url.startsWith("data:"))).toEqual(
        [],
      );
      expect(styles).not.toMatch(/@import/i);

      const frame = await app.appFrame();
      expect(
        await frame.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute("content")),
      ).toBe(app.csp);
      expect(app.csp).toContain("connect-src 'none'");
      // Both attempts end in a CSP violation the frame reports (once per policy: the host's and the app's own); neither
      // reaches the listener.
      const outcome = await frame.evaluate(async (url) => {
        const violations = new Set<string>();
        const imageRefused = new Promise<void>((resolve) =>
          document.addEventListener("securitypolicyviolation", (event) => {
            violations.add(event.effectiveDirective);
            if (event.effectiveDirective === "img-src") resolve();
          }),
        );
        const fetched = await fetch(url).then(
          () => "loaded",
          () => "refused",
        );
        const image = new Image();
        image.src = `${url}?img`;
        await imageRefused;
        return { fetched, violations: [...violations].sort() };
      }, probe);
      expect(outcome).toEqual({ fetched: "refused", violations: ["connect-src", "img-src"] });
      expect(hits).toBe(0);
      expect(app.appRequests).toEqual([]);

      // The control: the same image from a sandboxed frame the host made without the CSP does reach the listener.
      // Its load event waits for the image's answer (an error included).
      await app.page.evaluate(
        (url) =>
          new Promise<void>((resolve) => {
            const control = document.createElement("iframe");
            control.setAttribute("sandbox", "allow-scripts");
            control.addEventListener("load", () => resolve());
            control.srcdoc = `<img src="${url}?control">`;
            document.body.append(control);
          }),
        probe,
      );
      expect(hits).toBe(1);
    } finally {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
  });
});
