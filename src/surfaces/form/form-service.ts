import QRCode from 'qrcode';
import type { Database } from '../../db/database.js';
import type { MultipartUpload } from '../../http/multipart.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { isInternalId } from '../../lib/ids.js';
import { money } from '../../lib/money.js';
import { cryptoMethod, FORM_TYPES, requisiteNeedFor } from '../../modules/catalog/index.js';
import { findMerchant } from '../../modules/merchants/index.js';
import type { OrderRow } from '../../modules/orders/index.js';
import { findOrderById, remainingSeconds } from '../../modules/orders/index.js';
import type { AppealsService } from '../../rails/appeals/index.js';
import type { ReceiptsService } from '../../rails/receipts/index.js';
import { outcomesFor, type SandboxOutcome, type SandboxService } from '../../rails/sandbox/index.js';
import {
  bankAppLink,
  formatCard,
  formatCrypto,
  formatPhone,
  paymentUri,
  type WalletTarget,
} from './form-format.js';

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
  /** The token contract and chain id the watcher of a network (`ERC20`, `TON`...) follows. */
  walletTarget?: (network: string) => Promise<WalletTarget>;
}) {
  const { database, clock, receipts, appeals } = deps;

  /** The PAYIN order behind a form id; anything else (unknown, malformed, a payout) is NOT_FOUND. */
  async function formOrder(id: string): Promise<OrderRow> {
    if (!isInternalId(id)) throw new AppError('NOT_FOUND');
    const order = await findOrderById(database.db, id);
    if (order?.direction !== 'PAYIN') throw new AppError('NOT_FOUND');
    return order;
  }

  /** The live state the page follows (`GET /form/<id>/status`); crypto amounts in the asset's decimals. */
  async function status(id: string) {
    const order = await formOrder(id);
    const nowMs = clock.now();
    const state = stateOf(order, nowMs);
    const precision = cryptoMethod(order.type)?.precision ?? 8;
    const crypto = order.method === 'crypto';
    return {
      status: order.status,
      state,
      remainingSeconds: state === 'pending' ? (remainingSeconds(order, nowMs) ?? 0) : 0,
      receiptStatus: order.receiptStatus,
      cryptoAmount:
        crypto && order.cryptoAmount !== null ? formatCrypto(order.cryptoAmount, precision) : null,
      receivedAmount:
        crypto && order.receivedAmount !== null && money(order.receivedAmount).gt(0)
          ? formatCrypto(order.receivedAmount, precision)
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
      const merchant = await findMerchant(database.db, order.merchantId);
      const pending = live.state === 'pending';
      const base = {
        id: order.id,
        state: live.state,
        remainingSeconds: live.remainingSeconds,
        expiresAt: order.expiresAt?.toISOString() ?? null,
        receiptStatus: live.receiptStatus,
        currency: order.currency,
        type: order.type,
        // Who is asking for money, and where the payer goes back to (issue 22 item 2).
        merchantName: merchant?.displayName ?? null,
        logoUrl: merchant?.logoUrl ?? null,
        returnUrl: order.returnUrl ?? merchant?.returnUrl ?? null,
        // A sandbox order says so and offers its outcomes as buttons (issue 21 section 2).
        test: order.test,
        sandboxOutcomes: outcomesFor(order).filter((o) => o !== 'paid_other_amount'),
      };
      if (order.method === 'crypto') {
        const target = (await deps.walletTarget?.(order.pdHolderName)) ?? {};
        const uri = paymentUri(order.pdBank, order.pdHolderName, order.pdAddress, live.cryptoAmount, target);
        return {
          ...base,
          kind: 'crypto' as const,
          amount: money(order.amount).toFixed(),
          cryptoAmount: live.cryptoAmount,
          receivedAmount: live.receivedAmount,
          stillToSend:
            live.cryptoAmount && live.receivedAmount && money(live.cryptoAmount).gt(live.receivedAmount)
              ? formatCrypto(
                  money(live.cryptoAmount).minus(live.receivedAmount).toFixed(),
                  cryptoMethod(order.type)?.precision ?? 8,
                )
              : null,
          // The fiat amount and the coin's rate, when the order was asked in RUB (issue 22 item 5).
          fiat:
            order.currency === 'RUB' && order.cryptoRate !== null
              ? {
                  amount: money(order.amount).toFixed(),
                  rate: money(order.cryptoRate).toDecimalPlaces(2).toFixed(),
                }
              : null,
          coin: order.pdBank,
          network: order.pdHolderName,
          address: pending ? order.pdAddress : null,
          paymentUri: pending ? uri : null,
          qr: pending
            ? await QRCode.toDataURL(uri, { margin: 2, width: 240, errorCorrectionLevel: 'M' })
            : null,
          bankLink: null,
          uploadAllowed: false,
          appeal: null,
          appealAllowed: false,
          appealLater: false,
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
        // A payer on a phone cannot scan their own screen: the link opens the bank app (issue 22 item 4).
        bankLink: pending ? bankAppLink(qrPayload) : null,
        uploadAllowed: FORM_TYPES.includes(order.type),
        appeal,
        appealAllowed,
        // The claim form waits hidden in a live pending page, shown if the order ends while open.
        appealLater: pending && !order.test,
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
