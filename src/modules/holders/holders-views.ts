import { money } from '../../lib/money.js';
import type { HolderRequisite } from '../requisites/index.js';
import type { HolderRow, SettlementRow } from './holders-repository.js';

// The answers of the holders' admin routes (holders-schemas.ts), built from rows. Amounts are
// decimal strings (docs/api.md "Holders").

const dec = (v: string | null) => (v === null ? null : money(v).toFixed());

/** A holder as the admin API answers it. */
export function holderView(row: HolderRow) {
  return {
    id: row.id,
    name: row.name,
    contacts: row.contacts,
    status: row.status,
    commission_percent: money(row.commissionPercent).toFixed(),
    exposure_limit: dec(row.exposureLimit),
    security_deposit: dec(row.securityDeposit),
    payouts_allowed: row.payoutsAllowed,
    from_migration: row.fromMigration !== null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** A settlement or correction as the admin API answers it. */
export function settlementView(row: SettlementRow) {
  return {
    id: row.id,
    holder_id: row.holderId,
    kind: row.kind,
    currency: row.currency,
    amount: money(row.amount).toFixed(),
    method: row.method,
    reference: row.reference,
    tx_hash: row.txHash,
    reason: row.reason,
    proof:
      row.proofKey && row.proofContentType
        ? {
            content_type: row.proofContentType,
            size_bytes: row.proofSize ?? 0,
            url: `/admin/holders/${row.holderId}/settlements/${row.id}/proof`,
          }
        : null,
    journal_id: row.journalId,
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
  };
}

/** A requisite of a holder (the address as stored: operators see it in full, like the pool list). */
export function holderRequisiteView(r: HolderRequisite) {
  return {
    id: r.id,
    kind: r.kind,
    bank: r.bank,
    address: r.address,
    currency: r.currency,
    enabled: r.enabled,
    paused_reason: r.pausedReason,
  };
}
