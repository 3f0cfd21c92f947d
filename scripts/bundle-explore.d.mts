/** Types of scripts/bundle-explore.mjs (a plain module, so scripts/build.mjs runs without a TypeScript loader). */
export declare const EXPLORE_ENTRY: string;
export declare const EXPLORE_OUT: string;
export declare function bundleExplore(outdir?: string): Promise<void>;
