/**
 * A value the code knows is there (a row it has just written, a key it has just set), narrowed: when it is missing
 * anyway, a bug broke that invariant, and the error says which one rather than failing later on `undefined`.
 */
export function present<T>(value: T | null | undefined, invariant: string): T {
  if (value === null || value === undefined) throw new Error(`Invariant broken: ${invariant}`);
  return value;
}
