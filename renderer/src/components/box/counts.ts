/** 1 → "1 download", 1200 → "1,200 downloads" (in the browser's locale). */
export const plural = (n: number, one: string): string => `${n.toLocaleString()} ${one}${n === 1 ? '' : 's'}`;
