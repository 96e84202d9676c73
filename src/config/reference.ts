import { type SettingName, SETTINGS, type Topic } from "./table.js";

/**
 * docs/configuration.md, generated from the settings table (`npm run docs` writes it; a test fails
 * when the committed file differs), so the reference cannot drift from what the code reads.
 */
const TOPICS: readonly { topic: Topic; intro: string }[] = [
  {
    topic: "Storage",
    intro:
      "Where the memory lives. With none of the connection settings, `npm start` and the CLI use an embedded Azurite whose data " +
      "is kept in `./.azurite` (`MEMORY_AZURITE_FOLDER`). To use an Azurite you run yourself: " +
      "`MEMORY_STORAGE_CONNECTION_STRING=UseDevelopmentStorage=true npm start`. Under Azure Functions, copy " +
      "`local.settings.sample.json` to `local.settings.json` for `func start` (never commit the latter).",
  },
  { topic: "Local server and CLI", intro: "Read by `npm start` and the `central-memory` CLI only; Azure Functions owns its own address." },
  {
    topic: "Authentication",
    intro: "Who may call the MCP routes. Responses and the invalid-settings report never show these settings' values.",
  },
  { topic: "Tools and requests", intro: "What a connection gets, and how long one request may take." },
  { topic: "Set by Azure", intro: "Set by App Service and Functions, never by you; read to pick safe defaults there." },
  { topic: "Benchmarks", intro: "Read by `npm run bench`, `bench:import` and `load` only." },
];

const INVALID_SETTINGS = `## Invalid settings

A setting the app cannot run with (an unknown \`MEMORY_AUTH\` or \`MEMORY_TOOLSETS\` value, \`MEMORY_AUTH=entra\` without its tenant,
audience and grants, unparseable \`MEMORY_API_KEYS\`, a timeout or retry count that is not a whole number, a table name Table
Storage refuses…) is reported with every other wrong setting at once, each naming the setting and what it expects (the
"accepts" column above):

- \`npm start\` does not start: it prints each problem, naming the setting, and exits with 1. The CLI (\`central-memory\`) stops
  the same way on a bad storage setting (it reads no authentication or tool settings, since it serves no requests).
- Under Azure Functions the app keeps answering, so the operator can see what is wrong: \`/api/health\` answers \`200\` with
  \`"configuration":"invalid"\`, \`/api/ready\` answers \`503\` with a reason naming each wrong setting and what it expects, and every
  other route answers \`503 {"error":"InvalidConfiguration","message":"…","problems":[{"setting","expected"}]}\`. Responses never
  show a setting's value. The full messages, values included, are logged once (to the Functions log) when the app is built from
  those settings, and fixing the settings (which restarts the app) is all it takes.
`;

function cell(text: string): string {
  return text.replaceAll("|", "\\|");
}

export function configurationReference(): string {
  const names = Object.keys(SETTINGS) as SettingName[];
  const sections = TOPICS.map(({ topic, intro }) => {
    const rows = names
      .filter((name) => SETTINGS[name].topic === topic)
      .map((name) => {
        const { kind, doc } = SETTINGS[name];
        return `| \`${name}\` | ${cell(doc)} | ${cell(kind.expected)} | ${cell(SETTINGS[name].default)} |`;
      });
    return `## ${topic}\n\n${intro}\n\n| setting | meaning | accepts | default |\n|---|---|---|---|\n${rows.join("\n")}\n`;
  });
  return [
    "# Configuration",
    "",
    "<!-- Generated from src/config/table.ts by `npm run docs`; edit the table, not this file. -->",
    "",
    "Every setting is an environment variable (an app setting under Azure Functions). A blank value means unset.",
    "",
    ...sections,
    INVALID_SETTINGS,
  ].join("\n");
}
