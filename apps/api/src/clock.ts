/** Time as a service, so tests control expiry and rate windows without sleeping. */
export interface Clock {
  readonly now: () => Date;
}

export const systemClock: Clock = { now: () => new Date() };

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
