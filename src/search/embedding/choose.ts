import type { Embedder } from "../../domain/ports/embedder.js";
import { EndpointEmbedder, type EndpointSettings } from "./endpointEmbedder.js";
import { localEmbedder } from "./localModel.js";

/** Which model turns texts into vectors (MEMORY_EMBEDDINGS): src/config reads it, the runtime picks the Embedder with it. */
export type EmbeddingSettings = { kind: "local" } | { kind: "off" } | ({ kind: "endpoint" } & EndpointSettings);

/** The Embedder the settings name; undefined when search by meaning is off (words and graph only). */
export function embedderFrom(settings: EmbeddingSettings): Embedder | undefined {
  switch (settings.kind) {
    case "local":
      return localEmbedder();
    case "off":
      return undefined;
    case "endpoint": {
      const { kind: _kind, ...endpoint } = settings;
      return new EndpointEmbedder(endpoint);
    }
  }
}
