/**
 * The worker's time source. Tasks read the time only through a `Clock`, so
 * tests fix it and expiry rules are checked without sleeping.
 */

/** Where the current time comes from. */
export interface Clock {
  readonly now: () => Date;
}

/** The real wall clock, for production and development. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock stopped at `instant` (tests). */
export const fixedClock = (instant: Date): Clock => ({ now: () => new Date(instant.getTime()) });
