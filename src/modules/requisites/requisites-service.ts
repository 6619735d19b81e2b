import type { Database } from '../../db/database.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { money } from '../../lib/money.js';
import { writeAudit } from '../../platform/audit/index.js';
import type { BanksService } from '../banks/index.js';
import { FIAT_CURRENCIES } from '../catalog/index.js';
import {
  findRequisiteForUpdate,
  insertRequisite,
  listRequisites,
  type NewRequisiteRow,
  type RequisiteRow,
  requisiteMasks,
  updateRequisite,
} from './requisites-repository.js';

/** A requisite's load as the orders show it (pending orders, today's turnover, last order). */
export interface RequisiteLoad {
  activeOrders: number;
  todayTurnover: string;
  lastAssignedAt: Date | null;
}

export interface RequisiteInput {
  kind: 'card' | 'phone' | 'qr' | 'account';
  bank: string;
  address: string;
  holder_name: string;
  currency: string;
  min_amount?: number | string | null;
  max_amount?: number | string | null;
  daily_limit?: number | string | null;
  max_active_orders?: number | null;
  emv?: string | null;
}

export interface RequisitePatch {
  enabled?: boolean;
  min_amount?: number | string | null;
  max_amount?: number | string | null;
  daily_limit?: number | string | null;
  max_active_orders?: number | null;
  emv?: string | null;
  holder_name?: string;
  /** Card or account endings its bank's messages show, besides a card's own last four digits. */
  masks?: string[];
  /** `null` resumes a paused requisite (a block is lifted only this way). */
  paused_reason?: null;
}

/** Masks all but the last 4 characters of a card or phone for lists and logs. */
export function maskAddress(address: string): string {
  return address.length <= 4
    ? address
    : `${'*'.repeat(Math.min(address.length - 4, 12))}${address.slice(-4)}`;
}

export function requisiteView(r: RequisiteRow, load?: RequisiteLoad) {
  return {
    id: r.id,
    kind: r.kind,
    bank: r.bank,
    bank_code: r.bankCode,
    address: r.address,
    holder_name: r.holderName,
    currency: r.currency,
    min_amount: r.minAmount,
    max_amount: r.maxAmount,
    daily_limit: r.dailyLimit,
    max_active_orders: r.maxActiveOrders,
    emv: r.emv,
    enabled: r.enabled,
    disabled_reason: r.disabledReason,
    masks: requisiteMasks(r),
    extra_masks: r.masks,
    paused_reason: r.pausedReason,
    paused_at: r.pausedAt?.toISOString() ?? null,
    last_assigned_at: load?.lastAssignedAt?.toISOString() ?? null,
    created_at: r.createdAt.toISOString(),
    ...(load
      ? { active_orders: Number(load.activeOrders), today_turnover: money(load.todayTurnover).toFixed() }
      : {}),
  };
}

function amountOrNull(field: string, value: number | string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  const text = String(value);
  if (!/^\d{1,15}(\.\d{1,2})?$/.test(text)) throw invalidField(field, 'must be a non-negative amount');
  return money(text).toFixed();
}

const ADDRESS_RULES: Record<RequisiteInput['kind'], { re: RegExp; problem: string }> = {
  card: { re: /^\d{16,19}$/, problem: 'a card number is 16 to 19 digits' },
  phone: { re: /^\d{11,15}$/, problem: 'a phone is 11 to 15 digits, no +' },
  qr: { re: /^\S.{0,2047}$/s, problem: 'a QR payload is 1 to 2048 characters' },
  account: { re: /^[0-9A-Za-z]{8,34}$/, problem: 'an account is 8 to 34 letters or digits' },
};

/**
 * The requisites pool as operators manage it (docs/api.md "Admin API"; docs/decisions.md section 7). `loads`
 * reads each requisite's load from the orders (the orders module's, given by the composition root).
 */
export function createRequisitesService(deps: {
  database: Database;
  clock: Clock;
  banks: BanksService;
  loads: (requisiteIds: string[], now: Date) => Promise<Map<string, RequisiteLoad>>;
}) {
  const db = deps.database.db;
  const { clock, banks } = deps;

  function limitColumns(input: RequisitePatch): Partial<NewRequisiteRow> {
    const out: Partial<NewRequisiteRow> = {};
    const min = amountOrNull('min_amount', input.min_amount);
    const max = amountOrNull('max_amount', input.max_amount);
    const daily = amountOrNull('daily_limit', input.daily_limit);
    if (min !== undefined) out.minAmount = min;
    if (max !== undefined) out.maxAmount = max;
    if (daily !== undefined) out.dailyLimit = daily;
    if (input.max_active_orders !== undefined) out.maxActiveOrders = input.max_active_orders;
    if (input.emv !== undefined) out.emv = input.emv;
    return out;
  }

  return {
    async create(input: RequisiteInput, actor: AdminActor) {
      if (!FIAT_CURRENCIES.includes(input.currency)) throw invalidField('currency', 'unknown fiat currency');
      const address = input.kind === 'qr' ? input.address : input.address.replace(/[\s+()-]/g, '');
      const rule = ADDRESS_RULES[input.kind];
      if (!rule.re.test(address)) throw invalidField('address', rule.problem);
      const columns = limitColumns(input);
      if (columns.minAmount && columns.maxAmount && money(columns.minAmount).gt(columns.maxAmount)) {
        throw invalidField('min_amount', 'must not exceed max_amount');
      }
      const bankCode = (await banks.codeFor(input.bank)) ?? null;
      return db.transaction(async (tx) => {
        const row = await insertRequisite(tx, {
          kind: input.kind,
          bank: input.bank.trim(),
          bankCode,
          address,
          holderName: input.holder_name.trim(),
          currency: input.currency,
          ...columns,
        });
        const view = requisiteView(row);
        await writeAudit(tx, actor, {
          action: 'requisite.create',
          targetType: 'requisite',
          targetId: row.id,
          after: { ...view, address: maskAddress(row.address) },
        });
        return view;
      });
    },

    async list() {
      const rows = await listRequisites(db);
      const loads = await deps.loads(
        rows.map((r) => r.id),
        new Date(clock.now()),
      );
      const none: RequisiteLoad = { activeOrders: 0, todayTurnover: '0', lastAssignedAt: null };
      return rows.map((r) => requisiteView(r, loads.get(r.id) ?? none));
    },

    /** Enables/disables a requisite or changes its limits; audited. */
    async update(id: string, patch: RequisitePatch, actor: AdminActor) {
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id))
        throw new AppError('NOT_FOUND');
      const columns = limitColumns(patch);
      if (patch.enabled !== undefined) {
        columns.enabled = patch.enabled;
        if (patch.enabled) columns.disabledReason = null;
        else columns.disabledReason = 'disabled by an operator';
      }
      if (patch.holder_name !== undefined) columns.holderName = patch.holder_name.trim();
      if (patch.masks !== undefined) {
        const bad = patch.masks.find((m) => !/^\d{2,8}$/.test(m));
        if (bad !== undefined) throw invalidField('masks', 'each mask is 2 to 8 digits');
        columns.masks = [...new Set(patch.masks)];
      }
      if (patch.paused_reason === null) {
        columns.pausedReason = null;
        columns.pausedAt = null;
      }
      return db.transaction(async (tx) => {
        const before = await findRequisiteForUpdate(tx, id);
        if (!before) throw new AppError('NOT_FOUND');
        const after = await updateRequisite(tx, id, columns);
        if (!after) throw new AppError('NOT_FOUND');
        const mask = (r: RequisiteRow) => ({ ...requisiteView(r), address: maskAddress(r.address) });
        await writeAudit(tx, actor, {
          action: 'requisite.update',
          targetType: 'requisite',
          targetId: id,
          before: mask(before),
          after: mask(after),
        });
        return requisiteView(after);
      });
    },
  };
}

export type RequisitesService = ReturnType<typeof createRequisitesService>;
