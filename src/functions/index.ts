// The Functions entry module (package.json "main") only wires: each trigger module registers itself.
import "./http.js";
import "./sweep.js";
