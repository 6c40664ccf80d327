// Types of bin/ensure-browser.mjs, which the browser tests import.
export declare function findChromium(): string | undefined;
export declare function ensureChromium(): string;
