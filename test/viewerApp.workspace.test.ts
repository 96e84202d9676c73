import { describe, expect, test } from "@jest/globals";

import { mergeReport, withWorkspace } from "../src/viewer/outcomes.js";
import { type GraphView, structuredOf } from "../src/viewer/shapes.js";
import { type McpTestClient, ok, uniqueWorkspace, withTestServers } from "./support/harness.js";

/**
 * The MCP App's calls on both routes a host may use (src/viewer/appMain.ts): the app's data source names the opening
 * result's workspace in every call (withWorkspace), so the unbound /api/mcp, where every tool requires workspaceName,
 * answers them, and a bound route accepts the equal name. The real local server over Azurite, a real SDK client standing
 * in for the host (the host only forwards the call: App.callServerTool).
 */
const workspace = uniqueWorkspace("appws");
let unbound: McpTestClient;
let bound: McpTestClient;

withTestServers(
  { servers: { server: {} }, clients: { unbound: {}, bound: { path: `/api/workspaces/${workspace}/mcp` } } },
  async (started) => {
    ({ unbound, bound } = started);
    ok(
      await bound.call("create_entities", {
        entities: [
          { name: "Billing", entityType: "service", observations: ["Owns invoices"] },
          { name: "Billing Service", entityType: "service", observations: ["Owns the invoices table"] },
        ],
      }),
    );
    ok(await bound.call("create_relations", { relations: [{ from: "Billing", to: "Billing Service", relationType: "calls" }] }));
  },
);

/** The app's data source over a host connected to `client`, as appMain.ts builds it once the opening arrived. */
function appSource(client: McpTestClient, workspaceName: string | undefined) {
  return {
    call: async <T>(name: string, args: Record<string, unknown> = {}) =>
      structuredOf<T>(name, await client.call(name, withWorkspace(args, workspaceName))),
  };
}

describe("the app's calls name the workspace the opening named", () => {
  test("on the unbound /api/mcp, every read and the merge preview work; without the name they are refused", async () => {
    // The model opened the app on /api/mcp, so it named the workspace; the app's own calls never do.
    const opening = ok<GraphView>(await unbound.call("show_memory_graph", { workspaceName: workspace }));
    expect(opening.workspaceName).toBe(workspace);
    const app = appSource(unbound, opening.workspaceName);
    const slice = await app.call<{ entities: { name: string }[] }>("app_expand", { entityName: "Billing" });
    expect(slice.entities.map((entity) => entity.name).sort()).toEqual(["Billing", "Billing Service"]);
    const details = await app.call<{ entity: { name: string } }>("app_entity_details", { entityName: "Billing Service" });
    expect(details.entity.name).toBe("Billing Service");
    const filtered = await app.call<{ entities: unknown[] }>("app_filter", { entityType: "service" });
    expect(filtered.entities).toHaveLength(2);
    const timeline = await app.call<{ events: unknown[] }>("show_entity_timeline", { entityName: "Billing" });
    expect(timeline.events.length).toBeGreaterThan(0);
    const preview = await app.call<unknown>("merge_entities", { target: "Billing", sources: ["Billing Service"], dryRun: true });
    expect(mergeReport(preview, { target: "Billing", source: "Billing Service", dryRun: true }).observations.moved).toBe(1);

    // The reviewer's finding: the same call without the workspace fails on this route.
    await expect(appSource(unbound, undefined).call("app_expand", { entityName: "Billing" })).rejects.toThrow(/workspaceName/);
  });

  test("on a bound route, the equal name is accepted", async () => {
    const app = appSource(bound, workspace);
    const slice = await app.call<{ entities: { name: string }[] }>("app_expand", { entityName: "Billing" });
    expect(slice.entities.map((entity) => entity.name).sort()).toEqual(["Billing", "Billing Service"]);
  });
});
