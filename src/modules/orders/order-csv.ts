import type { AdminOrderView } from './order-admin-view.js';

/**
 * The orders CSV's columns, one list for every export of orders (the console's `/backoffice/orders.csv`
 * and the portal's `/portal/orders.csv`; docs/api.md "Operator console" and "Merchant portal"): the
 * API's field names, numbers as the API shows them, ISO 8601 UTC times.
 */
export const ORDER_CSV_COLUMNS = [
  'id',
  'order_id',
  'merchant_id',
  'created_at',
  'finished_at',
  'direction',
  'type',
  'status',
  'status_reason',
  'currency',
  'amount',
  'requested_amount',
  'amountAfterFee',
  'fee',
  'client_id',
  'comment',
  'test',
] as const;

/** One order as a CSV row of `ORDER_CSV_COLUMNS` (a missing value is an empty cell). */
export function orderCsvRow(view: AdminOrderView): Record<string, unknown> {
  const fields: Record<string, unknown> = { ...view };
  return Object.fromEntries(ORDER_CSV_COLUMNS.map((c) => [c, fields[c] ?? '']));
}
