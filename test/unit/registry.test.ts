import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";

import { TOOLSETS } from "../../src/mcp/tool.js";
import { ALL_TOOLS } from "../../src/mcp/tools/index.js";
import { failed } from "../support/harness.js";
import { connectInMemory, type InMemoryClient } from "../support/inMemoryServer.js";

/**
 * The tool registry's fast tier: the real MCP server and a real SDK Client over the in-memory transport, with storage
 * nobody listens on (no Azurite). What a client sees of the registry (which tools each toolset lists, their schemas and
 * annotations) and the refusal of bad input happen before storage; every check ends by asserting no storage request
 * was made.
 */
let unbound: InMemoryClient;
let bound: InMemoryClient;
let listed: Tool[];

beforeAll(async () => {
  [unbound, bound] = await Promise.all([connectInMemory(), connectInMemory({ boundWorkspace: "fast-tier" })]);
  listed = (await unbound.client.listTools()).tools;
});

afterAll(async () => {
  for (const connection of [unbound, bound]) {
    expect(connection.requests()).toBe(0);
    await connection.close();
  }
});

const sorted = (names: Iterable<string>) => [...names].sort();
const WRITE_TOOLS = ALL_TOOLS.filter((tool) => !tool.annotations.readOnlyHint);

describe("tools/list per toolset", () => {
  test("with no toolsets chosen, every tool of the registry is listed once", () => {
    expect(sorted(listed.map((tool) => tool.name))).toEqual(sorted(ALL_TOOLS.map((tool) => tool.name)));
  });

  test.each(TOOLSETS.map((toolset) => [toolset]))("toolsets=%s lists exactly the tools of that toolset", async (toolset) => {
    const connection = await connectInMemory({ toolsets: new Set([toolset]) });
    try {
      const names = (await connection.client.listTools()).tools.map((tool) => tool.name);
      expect(names.length).toBeGreaterThan(0);
      expect(sorted(names)).toEqual(sorted(ALL_TOOLS.filter((tool) => tool.toolsets.includes(toolset)).map((tool) => tool.name)));
      expect(connection.requests()).toBe(0);
    } finally {
      await connection.close();
    }
  });

  test("the toolsets together list every tool", async () => {
    const seen = new Set<string>();
    for (const toolset of TOOLSETS) {
      const connection = await connectInMemory({ toolsets: new Set([toolset]) });
      for (const tool of (await connection.client.listTools()).tools) seen.add(tool.name);
      await connection.close();
    }
    expect(sorted(seen)).toEqual(sorted(ALL_TOOLS.map((tool) => tool.name)));
  });

  test("a read-only caller is listed no write tool", async () => {
    const reader = await connectInMemory({ principal: { id: "reader", kind: "key", grants: [{ workspaces: ["*"], access: "read" }] } });
    try {
      const names = (await reader.client.listTools()).tools.map((tool) => tool.name);
      expect(sorted(names)).toEqual(sorted(ALL_TOOLS.filter((tool) => tool.annotations.readOnlyHint).map((tool) => tool.name)));
    } finally {
      await reader.close();
    }
  });
});

describe("the apps toolset's tools (docs/apps.md)", () => {
  test("each points to the one ui:// resource in its listing; the app-only ones are read-only and only in apps", () => {
    const appTools = ALL_TOOLS.filter((tool) => tool.app !== undefined);
    expect(sorted(appTools.map((tool) => tool.name))).toEqual(
      sorted(ALL_TOOLS.filter((tool) => tool.toolsets.includes("apps")).map((tool) => tool.name)),
    );
    for (const tool of appTools) {
      const meta = listed.find((candidate) => candidate.name === tool.name)?._meta as
        { ui?: { resourceUri?: string }; "ui/resourceUri"?: string } | undefined;
      expect({ name: tool.name, uri: meta?.ui?.resourceUri, legacy: meta?.["ui/resourceUri"] }).toEqual({
        name: tool.name,
        uri: "ui://central-memory/viewer.html",
        legacy: "ui://central-memory/viewer.html",
      });
    }
    const appOnly = appTools.filter((tool) => tool.app?.visibility?.includes("model") === false);
    expect(sorted(appOnly.map((tool) => tool.name))).toEqual(["app_entity_details", "app_expand", "app_filter"]);
    for (const tool of appOnly)
      expect({ name: tool.name, readOnly: tool.annotations.readOnlyHint, toolsets: tool.toolsets }).toEqual({
        name: tool.name,
        readOnly: true,
        toolsets: ["apps"],
      });
    // No tool outside the apps names an app.
    expect(
      listed.filter((tool) => tool._meta !== undefined && !appTools.some((app) => app.name === tool.name)).map((tool) => tool.name),
    ).toEqual([]);
  });
});

describe("every listed tool describes itself", () => {
  test("a title, a description, input and output object schemas and the four annotations", () => {
    expect(listed.length).toBe(ALL_TOOLS.length);
    for (const tool of listed) {
      expect({ name: tool.name, title: typeof tool.title, description: typeof tool.description }).toEqual({
        name: tool.name,
        title: "string",
        description: "string",
      });
      expect(tool.description!.length).toBeGreaterThan(20);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type).toBe("object");
      for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
        expect({ tool: tool.name, hint, type: typeof tool.annotations?.[hint] }).toEqual({ tool: tool.name, hint, type: "boolean" });
      }
    }
  });

  test("workspaceName is required on /api/mcp and optional on a workspace's route, for every tool that takes one", async () => {
    const boundListing = new Map((await bound.client.listTools()).tools.map((tool) => [tool.name, tool]));
    for (const tool of ALL_TOOLS.filter((candidate) => !candidate.noWorkspace)) {
      const onUnbound = listed.find((candidate) => candidate.name === tool.name)!;
      expect({ tool: tool.name, required: onUnbound.inputSchema.required?.includes("workspaceName") }).toEqual({
        tool: tool.name,
        required: true,
      });
      const onBound = boundListing.get(tool.name)!;
      expect({ tool: tool.name, property: "workspaceName" in (onBound.inputSchema.properties ?? {}) }).toEqual({
        tool: tool.name,
        property: true,
      });
      expect({ tool: tool.name, required: onBound.inputSchema.required?.includes("workspaceName") ?? false }).toEqual({
        tool: tool.name,
        required: false,
      });
    }
  });
});

/** A value no schema of this type accepts: text where a number or a flag is expected, a number anywhere else. */
function wrongValueFor(property: unknown): unknown {
  const types = [(property as { type?: string | string[] }).type ?? []].flat();
  return types.some((type) => type === "number" || type === "integer" || type === "boolean") ? "not-a-number" : 12345;
}

describe("bad input to every write tool is refused with how to fix it, before any storage request", () => {
  test.each(WRITE_TOOLS.map((tool) => [tool.name]))("%s: no arguments, each missing one named (the first five)", async (name) => {
    const required = listed.find((tool) => tool.name === name)!.inputSchema.required ?? [];
    expect(required.length).toBeGreaterThan(0);
    const error = failed(await unbound.call(name, {}));
    expect(error.error).toBe("ValidationError");
    expect(error.message).toMatch(new RegExp(`^Invalid arguments for ${name}: `));
    for (const property of required.slice(0, 5)) expect(error.message).toMatch(new RegExp(`(: |; )${property}: `));
    expect(unbound.requests()).toBe(0);
  });

  test("an invalid workspace name, with arguments otherwise right, says which names are allowed", async () => {
    const error = failed(await unbound.call("upsert_entity", { workspaceName: "no/such workspace", name: "A", entityType: "t" }));
    expect(error.error).toBe("ValidationError");
    expect(error.message).toMatch(/^Invalid workspaceName .*: use 1-63 characters/);
    expect(unbound.requests()).toBe(0);
  });

  test.each(WRITE_TOOLS.map((tool) => [tool.name]))("%s: each required argument of the wrong type, named in the message", async (name) => {
    const schema = listed.find((tool) => tool.name === name)!.inputSchema;
    const own = (properties: readonly string[]) => properties.filter((property) => property !== "workspaceName");
    // A tool with no required argument (sweep_expired) has each optional one checked instead.
    const named = own(schema.required ?? []);
    const required = named.length > 0 ? named : own(Object.keys(schema.properties ?? {}));
    expect(required.length).toBeGreaterThan(0);
    for (const property of required) {
      const args = { workspaceName: "fast-tier", [property]: wrongValueFor(schema.properties?.[property]) };
      const error = failed(await unbound.call(name, args));
      expect({ property, error: error.error }).toEqual({ property, error: "ValidationError" });
      expect(error.message).toMatch(new RegExp(`^Invalid arguments for ${name}: (.*; )?${property}[.:]`));
    }
    // The same calls on the workspace's own route, where workspaceName may be left out.
    for (const property of required) {
      const error = failed(await bound.call(name, { [property]: wrongValueFor(schema.properties?.[property]) }));
      expect({ property, error: error.error }).toEqual({ property, error: "ValidationError" });
    }
    expect(unbound.requests() + bound.requests()).toBe(0);
  });

  test("an unknown tool is a ValidationError that lists the available tools", async () => {
    const error = failed(await unbound.call("create_entity", { workspaceName: "fast-tier" }));
    expect(error.error).toBe("ValidationError");
    expect(error.message).toMatch(/^Unknown tool 'create_entity'\. Available tools: .*create_entities/);
  });

  test("a tool outside the connection's toolsets is refused, naming the toolset to add", async () => {
    const coreOnly = await connectInMemory({ toolsets: new Set(["core"]) });
    try {
      const error = failed(await coreOnly.call("tag_entity", { workspaceName: "fast-tier", entityName: "A", tagNames: ["x"] }));
      expect(error.error).toBe("ValidationError");
      expect(error.message).toMatch(/tag_entity is in the toolset 'tags'.*Add 'tags' to \?toolsets=/);
      expect(coreOnly.requests()).toBe(0);
    } finally {
      await coreOnly.close();
    }
  });
});
