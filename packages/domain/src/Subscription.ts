/**
 * A company's subscription period (docs/decisions/0581). Every company has
 * one: unless an end was set for it, its plan renews monthly on the
 * anniversary of the company's creation, and the current period ends at the
 * next anniversary. Months are calendar months in UTC; an anniversary on a
 * day the month lacks falls on its last day (created on 31 January: 28 or 29
 * February, then 31 March).
 */

/** The plan of a new company. */
export const defaultPlan = "starter";

/** The status of a new company's subscription. */
export const defaultStatus = "active";

/** `anchor` moved `months` calendar months later (UTC), its day clamped to the target month's last day. */
export const addMonths = (anchor: Date, months: number): Date => {
  const year = anchor.getUTCFullYear();
  const month = anchor.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      year,
      month,
      Math.min(anchor.getUTCDate(), lastDay),
      anchor.getUTCHours(),
      anchor.getUTCMinutes(),
      anchor.getUTCSeconds(),
      anchor.getUTCMilliseconds(),
    ),
  );
};

/**
 * The end of the monthly period running at `now` for a subscription that
 * began at `anchor`: the first monthly anniversary strictly after `now`.
 * Each anniversary is counted from `anchor` itself, so a short month does
 * not shift the later ones.
 *
 * @example
 * periodEnd(new Date("2026-01-31T10:00:00Z"), new Date("2026-02-10T00:00:00Z")) // 2026-02-28T10:00:00Z
 */
export const periodEnd = (anchor: Date, now: Date): Date => {
  const elapsed = (now.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + (now.getUTCMonth() - anchor.getUTCMonth());
  // `elapsed - 1` months on falls in an earlier month than `now`; `elapsed` months on may still be at or before it.
  let months = Math.max(1, elapsed);
  while (addMonths(anchor, months).getTime() <= now.getTime()) months += 1;
  return addMonths(anchor, months);
};
