/**
 * Time as a service. The api and the worker read the time only through a
 * `Clock`, so tests fix or move it and expiry rules and rate windows are
 * checked without sleeping.
 */

/** Where the current time comes from. */
export interface Clock {
  readonly now: () => Date;
}

/** The real wall clock, for production and development. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock stopped at `instant` (tests). */
export const fixedClock = (instant: Date): Clock => ({ now: () => new Date(instant.getTime()) });

/** A clock that stands still until moved (tests). */
export const manualClock = (start: Date): Clock & { readonly advance: (milliseconds: number) => void; readonly set: (date: Date) => void } => {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance: (milliseconds) => {
      current += milliseconds;
    },
    set: (date) => {
      current = date.getTime();
    },
  };
};
