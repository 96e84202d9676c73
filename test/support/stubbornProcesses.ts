/**
 * A script for `node -e` for the reaper's tests (test/unit/children.test.ts, test/fixtures/stuckChild.test.ts): PARENT ignores
 * SIGTERM, starts a grandchild that ignores it too, and once that one runs prints "pids <own> <grandchild>".
 */
const STUBBORN = `process.on("SIGTERM", () => {}); setInterval(() => {}, 1000); console.log("ready");`;
export const PARENT = `
const { spawn } = require("node:child_process");
process.on("SIGTERM", () => {});
setInterval(() => {}, 1000);
// Only once the grandchild ignores SIGTERM too.
const grandchild = spawn(process.execPath, ["-e", ${JSON.stringify(STUBBORN)}], { stdio: ["ignore", "pipe", "ignore"] });
grandchild.stdout.once("data", () => console.log("pids " + process.pid + " " + grandchild.pid));
`;
