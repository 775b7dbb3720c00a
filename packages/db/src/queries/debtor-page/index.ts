/** The debtor page's reads and writes (docs/decisions/0670-0674). */
export * from "./find-debtor-page.ts";
export * from "./insert-debtor-request.ts";
export * from "./record-provider-payment.ts";
export * from "./save-debtor-preferences.ts";
