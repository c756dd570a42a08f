import { useEffect, useRef } from 'react';

/**
 * A ref whose element takes the focus once it is shown, in place of `autoFocus`: for the sign-in form's first field,
 * whose page is the whole screen (nothing is skipped), and for the field of what the user has just opened or moved
 * to (a rename, the sign-in's second step), where focus follows their action. Not for a field on a page with more
 * to read: focus there would skip what comes before it for someone who reads with a screen reader.
 */
export function useFocusWhenShown<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => ref.current?.focus(), []);
  return ref;
}
