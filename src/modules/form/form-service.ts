import QRCode from 'qrcode';
import type { Database } from '../../db/database.js';
import type { MultipartUpload } from '../../http/multipart.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { isInternalId } from '../../lib/ids.js';
import { money } from '../../lib/money.js';
import type { AppealsService } from '../appeals/index.js';
import { FORM_TYPES, requisiteNeedFor } from '../catalog/index.js';
import type { OrderRow } from '../orders/index.js';
import { findOrderById, remainingSeconds } from '../orders/index.js';
import type { ReceiptsService } from '../receipts/index.js';
import { outcomesFor, type SandboxOutcome, type SandboxService } from '../sandbox/index.js';
import { formatCard, formatPhone, paymentUri } from './form-format.js';

/** What the payer sees of an order's progress. */
export type FormState = 'pending' | 'success' | 'expired' | 'failed';

function stateOf(order: OrderRow, nowMs: number): FormState {
  if (order.status === 'success') return 'success';
  if (order.status === 'error') return order.statusReason === 'expired' ? 'expired' : 'failed';
  return order.expiresAt && order.expiresAt.getTime() <= nowMs ? 'expired' : 'pending';
}

/**
 * The payment form's data (issue 7): only what a payer needs — the amount, where to pay, the time
 * left, the state — never the merchant, fees, client fields or comment.
 */
export function createFormService(deps: {
  database: Database;
  clock: Clock;
  receipts: ReceiptsService;
  appeals: AppealsService;
  sandbox: SandboxService;
}) {
  const { database, clock, receipts, appeals } = deps;

  /** The PAYIN order behind a form id; anything else (unknown, malformed, a payout) is NOT_FOUND. */
  async function formOrder(id: string): Promise<OrderRow> {
    if (!isInternalId(id)) throw new AppError('NOT_FOUND');
    const order = await findOrderById(database.db, id);
    if (order?.direction !== 'PAYIN') throw new AppError('NOT_FOUND');
    return order;
  }

  async function status(id: string) {
    const order = await formOrder(id);
    const nowMs = clock.now();
    const state = stateOf(order, nowMs);
    return {
      status: order.status,
      state,
      remainingSeconds: state === 'pending' ? (remainingSeconds(order, nowMs) ?? 0) : 0,
      receiptStatus: order.receiptStatus,
      cryptoAmount:
        order.method === 'crypto' && order.cryptoAmount !== null
          ? money(order.cryptoAmount).toFixed(8)
          : null,
    };
  }

  return {
    formOrder,
    status,

    /** Everything the page template shows; requisites only while the order is pending. */
    async page(id: string) {
      const order = await formOrder(id);
      const live = await status(id);
      const pending = live.state === 'pending';
      const base = {
        id: order.id,
        state: live.state,
        remainingSeconds: live.remainingSeconds,
        receiptStatus: live.receiptStatus,
        currency: order.currency,
        type: order.type,
        // A sandbox order says so and offers its outcomes as buttons (issue 21 section 2).
        test: order.test,
        sandboxOutcomes: outcomesFor(order).filter((o) => o !== 'paid_other_amount'),
      };
      if (order.method === 'crypto') {
        const uri = paymentUri(order.pdBank, order.pdHolderName, order.pdAddress, live.cryptoAmount);
        return {
          ...base,
          kind: 'crypto' as const,
          amount: money(order.amount).toFixed(),
          cryptoAmount: live.cryptoAmount,
          coin: order.pdBank,
          network: order.pdHolderName,
          address: pending ? order.pdAddress : null,
          qr: pending
            ? await QRCode.toDataURL(uri, { margin: 2, width: 240, errorCorrectionLevel: 'M' })
            : null,
          uploadAllowed: false,
          appeal: null,
          appealAllowed: false,
        };
      }
      const appeal = pending ? null : await appeals.latestFor(order.id);
      const appealAllowed =
        !pending && appeal?.status !== 'open' && appeal?.status !== 'accepted' && order.status === 'error'
          ? await appeals.assertAppealable(order).then(
              () => true,
              () => false,
            )
          : false;
      const need = requisiteNeedFor(order.type);
      const kind =
        order.type === 'qr_smart' || need?.kinds[0] === 'qr'
          ? 'qr'
          : /^\d{16,19}$/.test(order.pdAddress)
            ? 'card'
            : /^\d{11}$/.test(order.pdAddress)
              ? 'phone'
              : 'account';
      const qrPayload = order.pdEmv ?? (kind === 'qr' ? order.pdAddress : null);
      return {
        ...base,
        kind: 'fiat' as const,
        requisiteKind: kind,
        amount: money(order.payableAmount).toFixed(),
        shifted: !money(order.payableAmount).eq(order.amount),
        address: pending ? order.pdAddress : null,
        addressShown: pending
          ? kind === 'card'
            ? formatCard(order.pdAddress)
            : kind === 'phone'
              ? formatPhone(order.pdAddress)
              : order.pdAddress
          : null,
        bank: pending ? order.pdBank : null,
        holder: pending ? order.pdHolderName : null,
        qr:
          pending && qrPayload
            ? await QRCode.toDataURL(qrPayload, { margin: 2, width: 240, errorCorrectionLevel: 'M' })
            : null,
        uploadAllowed: FORM_TYPES.includes(order.type),
        appeal,
        appealAllowed,
      };
    },

    /**
     * The payer's late-payment claim (`POST /form/<id>/appeal`, issue 21 section 4): a receipt on a
     * failed fiat PAYIN opens an appeal under the receipt rules; ORDER_STATE_CONFLICT otherwise.
     */
    async openAppeal(id: string, upload: MultipartUpload, ip: string) {
      const order = await formOrder(id);
      return appeals.openWithFile(order, upload, 'payer', { name: 'payer', ip });
    },

    /** A button of a test order's form: the order driven to `outcome`; ORDER_NOT_FOUND for a live one. */
    async sandbox(id: string, outcome: SandboxOutcome, ip: string) {
      const order = await formOrder(id);
      await deps.sandbox.driveTestOrder(order.id, outcome, { name: 'payer:sandbox-form', ip });
    },

    /**
     * The payer's receipt upload (`POST /form/<id>/receipt`): the same rules and codes as the merchant
     * upload; only for `card_pdf`, `sbp_pdf`, `qr_smart` while the order is pending.
     */
    async uploadReceipt(id: string, upload: MultipartUpload) {
      const order = await formOrder(id);
      if (!FORM_TYPES.includes(order.type)) throw new AppError('NOT_FOUND');
      if (stateOf(order, clock.now()) !== 'pending') throw new AppError('ORDER_STATE_CONFLICT');
      const receipt = await receipts.attachFile(order, upload, 'form');
      return { receiptStatus: receipt.status };
    },
  };
}

export type FormService = ReturnType<typeof createFormService>;
