import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import type { Browser } from "playwright-core";

import { type AppHost, startAppHost } from "./support/appHost.js";
import { browserAvailable, launchBrowser } from "./support/browser.js";
import { viewerBuildOnce } from "./support/build.js";
import { connectClient, ok, startTestServer, type TestServer, uniqueWorkspace } from "./support/harness.js";

/**
 * The MCP App on a host connected to the unbound route /api/mcp, where every tool requires workspaceName (the review's
 * finding: the app's own calls named none, so every click failed there). The app names the opening result's workspace
 * in each call (src/viewer/appMain.ts); here a read (app_entity_details) and a write (restore_entity) go through the test
 * host (test/support/appHost.ts) in Chromium, against the real local server over Azurite.
 */
const run = browserAvailable() ? describe : describe.skip;
const workspace = uniqueWorkspace("appunbound");
let server: TestServer;
let browser: Browser;
let host: AppHost;

beforeAll(async () => {
  if (!browserAvailable()) return;
  await viewerBuildOnce();
  server = await startTestServer();
  const seeding = await connectClient(server.url, "/api/mcp");
  ok(
    await seeding.call("create_entities", {
      workspaceName: workspace,
      entities: [{ name: "Retry Policy", entityType: "decision", observations: ["max 3 retries"] }],
    }),
  );
  ok(
    await seeding.call("add_observations", {
      workspaceName: workspace,
      observations: [{ entityName: "Retry Policy", contents: ["backoff 2s"] }],
    }),
  );
  await seeding.close();
  browser = await launchBrowser();
  host = await startAppHost({ browser, client: await connectClient(server.url, "/api/mcp") });
}, 120_000);

afterAll(async () => {
  await host?.teardown();
  await browser?.close();
  await server?.close();
});

run("an MCP App on the unbound /api/mcp", () => {
  test("the timeline's view and restore name the opening's workspace, and the server answers them", async () => {
    const app = await host.open("show_entity_timeline", { workspaceName: workspace, entityName: "Retry Policy" });
    const events = app.frame.locator("#events > li.event");
    expect(await events.count()).toBe(2);

    const oldest = events.nth(1);
    await oldest.locator("button.view").click();
    expect(await app.waitForCall("app_entity_details")).toMatchObject({ isError: false, args: { workspaceName: workspace } });
    await app.frame.locator("#state").filter({ hasText: "max 3 retries" }).waitFor();

    await oldest.locator("button.restore").click();
    await app.frame.locator("button.confirm-restore").click();
    expect(await app.waitForCall("restore_entity")).toMatchObject({
      isError: false,
      args: { workspaceName: workspace, entityName: "Retry Policy", rollBack: true },
    });
    // The app says it restored only once restore_entity's report said so (src/viewer/outcomes.ts).
    await app.frame.locator("#status").filter({ hasText: "Retry Policy restored" }).waitFor();
    expect(app.calls.filter((made) => made.isError)).toEqual([]);
    expect(app.incidents).toEqual([]);
  });
});
