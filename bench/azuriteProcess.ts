import { startAzurite } from "../src/local/azurite.js";
import { serveParent } from "./lib/processes.js";

/** Child process: the embedded Azurite Table service, in memory, on a free port. */
const azurite = await startAzurite();
serveParent({ connectionString: azurite.connectionString }, {}, () => azurite.stop());
