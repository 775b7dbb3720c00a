/**
 * Debts as the api shows them: the row plus what other tables say about it
 * (creditor name, group members, active payment plan), for a page of ids in
 * one statement, and its public shape (contract 2.3). Used by the lists, the
 * single reads and the debt.* webhook payloads, so they agree.
 */
import { DebtStatus, type Ids, Money } from "@dc/domain";
import { type RawBuilder, sql } from "kysely";
import { debtPaymentLink, type DebtorLinkSigner, type IdCodec } from "@dc/crypto";
import type { Debt } from "../../schema.ts";

export interface DebtView extends Debt {
  readonly creditor_name: string;
  /** The group's non-archived debt ids (this debt always included), ascending; `[id]` when ungrouped. */
  readonly group_debt_ids: ReadonlyArray<number>;
  /** Non-archived debts of the group (0 when ungrouped): "grouped" means at least 2. */
  readonly group_active_count: number;
  readonly payment_plan_active: boolean;
  readonly plan_start_date: string | null;
}

/** Statuses of closed debts: they no longer count as members of their group (docs/decisions/0109). */
export const archivedStatuses: ReadonlyArray<string> = [DebtStatus.paid, DebtStatus.cancelled];

/**
 * The enriched rows of company `companyId`'s debts whose ids `page` selects
 * (a query with one `id` column). The debts are read by their key,
 * (company_id, id) = any of the page's ids, and every join names the
 * company (docs/decisions/0023): joined to the page instead, the planner
 * read the whole company's debts of the creditor into a hash to enrich a
 * page of 20. A
 * grouped debt's plan may live on another debt of the group (the shared
 * plan debt), so the plan lookup spans the group.
 */
export const debtViewsOf = (companyId: number, page: RawBuilder<unknown>) => sql`
  select d.*, c.name as creditor_name,
    coalesce(g.visible_ids, array[d.id]) as group_debt_ids,
    coalesce(g.active_count, 0)::int4 as group_active_count,
    p.start_date as plan_start_date,
    (p.id is not null) as payment_plan_active
  from debts d
  join creditors c on c.company_id = d.company_id and c.id = d.creditor_id
  left join lateral (
    select
      array_agg(m.id order by m.id) filter (where m.id = d.id or m.status <> all(${archivedStatuses}::text[])) as visible_ids,
      array_agg(m.id) as member_ids,
      count(*) filter (where m.status <> all(${archivedStatuses}::text[])) as active_count
    from debts m
    where d.group_id is not null and m.company_id = d.company_id and m.group_id = d.group_id
  ) g on true
  left join lateral (
    select pp.id, pp.start_date
    from payment_plans pp
    where pp.company_id = d.company_id and pp.status = 'active' and pp.debt_id = any(coalesce(g.member_ids, array[d.id]))
    order by (pp.debt_id = d.id) desc, pp.id
    limit 1
  ) p on true
  where d.company_id = ${companyId} and d.id = any (array(${page}))
`;

type RawView = Omit<DebtView, "group_debt_ids"> & { readonly group_debt_ids: ReadonlyArray<string | number> };

/** int8[] arrives as strings (only scalar int8 has a number parser). */
export const toDebtView = (row: RawView): DebtView => ({ ...row, group_debt_ids: row.group_debt_ids.map(Number) });

export type { RawView as RawDebtView };

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The public fields of a debt (contract 2.3): encrypted ids, money in major
 * units, the group attributes, `company` only for collection agencies
 * (docs/decisions/0110). `Time` is how timestamps appear: Dates for the api
 * (its response schema formats them), wire strings for webhook payloads.
 */
export interface DebtResource<Time> {
  readonly id: string;
  readonly creditor_id: string;
  readonly debtor_id: string | null;
  readonly civility: string | null;
  readonly firstname: string | null;
  readonly lastname: string | null;
  readonly phone: string | null;
  readonly email: string | null;
  readonly birthdate: string | null;
  readonly amount: number;
  readonly amount_text: string;
  readonly remaining_amount: number;
  readonly currency: string;
  readonly object: string | null;
  readonly internal_id: string | null;
  readonly invoice_reference: string | null;
  readonly credited_invoice_reference: string | null;
  readonly is_credit_note: boolean;
  readonly debtor_reference: string | null;
  readonly invoice_date: string | null;
  readonly due_date: string | null;
  readonly address: string | null;
  readonly street_address: string | null;
  readonly street_number: string | null;
  readonly postal_code: string | null;
  readonly city: string | null;
  readonly country: string | null;
  readonly status: string;
  readonly timeline_id: string | null;
  readonly nb_reminders: number;
  readonly nb_answered: number;
  readonly summary: string | null;
  readonly iban: string | null;
  readonly followups_count: number;
  readonly company?: string;
  readonly debtor_company: string | null;
  readonly payment_link: string;
  readonly metadata: Record<string, unknown>;
  readonly import_date: Time;
  readonly last_timeline_restart: Time | null;
  readonly payment_plan_active: boolean;
  readonly plan_start_date: string | null;
  readonly is_grouped: boolean;
  readonly group_debt_ids: ReadonlyArray<string>;
  readonly created_at: Time;
  readonly updated_at: Time;
}

/**
 * How a presenter fills `payment_link` (docs/decisions/0670): the process's
 * signer and the time the platform links are signed at (the read's or the
 * event's).
 */
export interface DebtLinks {
  readonly signer: DebtorLinkSigner;
  readonly now: Date;
}

/** The one presenter of a debt view: the api's responses and the webhook payloads both use it. */
export const presentDebtView = <Time>(
  ids: IdCodec<Ids.Kind>,
  view: DebtView,
  collectionAgency: boolean,
  time: (date: Date) => Time,
  links: DebtLinks,
): DebtResource<Time> => ({
  id: ids.encode("debt", view.id),
  creditor_id: ids.encode("creditor", view.creditor_id),
  debtor_id: view.debtor_id === null ? null : ids.encode("debtor", view.debtor_id),
  civility: view.civility,
  firstname: view.firstname,
  lastname: view.lastname,
  phone: view.phone,
  email: view.email,
  birthdate: view.birthdate,
  amount: Money.fromMinor(view.amount_minor, view.currency),
  amount_text: view.amount_text,
  remaining_amount: Money.fromMinor(view.balance_minor, view.currency),
  currency: view.currency,
  object: view.object,
  internal_id: view.internal_id,
  invoice_reference: view.invoice_reference,
  credited_invoice_reference: view.credited_invoice_reference,
  is_credit_note: view.is_credit_note,
  debtor_reference: view.debtor_reference,
  invoice_date: view.invoice_date,
  due_date: view.due_date,
  address: view.address,
  street_address: view.street_address,
  street_number: view.street_number,
  postal_code: view.postal_code,
  city: view.city,
  country: view.country,
  status: view.status,
  timeline_id: view.timeline_id === null ? null : ids.encode("timeline", view.timeline_id),
  nb_reminders: view.nb_reminders,
  nb_answered: view.nb_answered,
  summary: view.summary,
  iban: view.iban,
  followups_count: view.followups_count,
  ...(collectionAgency ? { company: view.company ?? view.creditor_name } : {}),
  debtor_company: view.debtor_company,
  payment_link: debtPaymentLink(view.payment_link, links.signer, { companyId: view.company_id, debtId: view.id }, links.now),
  metadata: isPlainObject(view.metadata) ? view.metadata : {},
  import_date: time(view.import_date),
  last_timeline_restart: view.last_timeline_restart === null ? null : time(view.last_timeline_restart),
  payment_plan_active: view.payment_plan_active,
  plan_start_date: view.plan_start_date,
  is_grouped: view.group_active_count >= 2,
  group_debt_ids: view.group_debt_ids.map((id) => ids.encode("debt", id)),
  created_at: time(view.created_at),
  updated_at: time(view.updated_at),
});
