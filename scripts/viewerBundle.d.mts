/** Builds the viewer into `<root>/dist/viewer/` (see viewerBundle.mjs). */
export declare function bundleViewer(root: string): Promise<void>;
/** Rewrites minified ESM to inline in an HTML <script>; rejects what the rewrite cannot make safe (see viewerBundle.mjs). */
export declare function inlineSafe(code: string): Promise<string>;
