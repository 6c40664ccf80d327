// Types of local/bundle-freshness.mjs, which the plain-JavaScript launcher and build script import too.
export declare function recordBundleInputs(bundle: string, sources: readonly string[]): void;
export declare function bundleIsCurrent(bundle: string): boolean;
