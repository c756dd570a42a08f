/** See malloc-env.mjs. */
export declare const MALLOC_ENV: Readonly<Record<string, string>>;
