/**
 * "Firefox on Linux", "Chrome on Android": what a web UI session is called in the user's token
 * list, from the sign-in's User-Agent, so a user can tell their sessions apart and revoke the one
 * on a lost phone. Only names a person recognizes; anything else is "a browser".
 */
const BROWSERS: Array<[RegExp, string]> = [
  [/\bElectron\//, 'the Boxyard desktop app'],
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\//, 'Opera'],
  [/\b(?:Firefox|FxiOS)\//, 'Firefox'],
  [/\b(?:HeadlessChrome|Chrome|Chromium|CriOS)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
];

const SYSTEMS: Array<[RegExp, string]> = [
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b|\bX11\b/, 'Linux'],
];

const first = (ua: string, table: Array<[RegExp, string]>) => table.find(([re]) => re.test(ua))?.[1];

export function browserName(userAgent: string | undefined): string {
  const ua = userAgent ?? '';
  const browser = first(ua, BROWSERS) ?? 'a browser';
  const system = first(ua, SYSTEMS);
  return system ? `${browser} on ${system}` : browser;
}
