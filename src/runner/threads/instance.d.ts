// Types of instance.js (plain JavaScript, loaded by the sandbox thread), for the tests that call it directly.
export declare const HOST_NAMESPACE: string;
export declare function startCodeOf(exportNames: readonly string[], usesWasi: boolean): string[];
