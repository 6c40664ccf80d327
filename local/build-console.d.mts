// Types of local/build-console.mjs, which the benchmarks and the browser tests import.
export declare const consoleRoot: string;
export declare const consoleDist: string;
export declare const consoleMarker: string;
export declare function buildConsole(): Promise<void>;
