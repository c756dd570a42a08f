/**
 * The browser build of qrcode: what Vite bundles for `qrcode` anyway (its package.json "browser"
 * field). The page imports it by this path because @types/qrcode describes the Node build and
 * references Node's types, which would put `process`, `Buffer` and `node:*` modules in reach of
 * the renderer (tsconfig.renderer.json has no Node types). Only what the page calls is declared.
 */
declare module 'qrcode/lib/browser' {
  export interface SvgOptions {
    type: 'svg';
    /** Quiet zone around the code, in modules. */
    margin?: number;
    width?: number;
    errorCorrectionLevel?: 'L' | 'M' | 'Q' | 'H';
  }
  /** The code as an SVG document (the module's `toString`, a name declared here only as an export's). */
  function svg(text: string, options: SvgOptions): Promise<string>;
  export { svg as toString };
}
