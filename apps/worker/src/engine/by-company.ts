/** Groups items by company, for the statements that take one company at a time. */
export const byCompany = <T>(items: ReadonlyArray<T>, companyOf: (item: T) => number): Map<number, T[]> => {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const company = companyOf(item);
    const group = groups.get(company);
    if (group === undefined) groups.set(company, [item]);
    else group.push(item);
  }
  return groups;
};
