/** Builds the viewer into `<root>/dist/viewer/` (see viewerBundle.mjs). */
export declare function bundleViewer(root: string): Promise<void>;
