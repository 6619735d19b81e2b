import type { QRCodeToDataURLOptions } from 'qrcode';
import type { Database } from '../../db/database.js';
import type { MultipartUpload } from '../../http/multipart.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { isInternalId } from '../../lib/ids.js';
import { money } from '../../lib/money.js';
import { cryptoMethod, FORM_TYPES, requisiteNeedFor } from '../../modules/catalog/index.js';
import { findMerchant } from '../../modules/merchants/index.js';
import type { OrderRow } from '../../modules/orders/index.js';
import { orderQueries, remainingSeconds } from '../../modules/orders/index.js';
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

/** What the form service is built from (composition.ts). */
export interface FormServiceDeps {
  database: Database;
  clock: Clock;
  receipts: ReceiptsService;
  appeals: AppealsService;
  sandbox: SandboxService;
  /** The token contract and chain id the watcher of a network (`ERC20`, `TON`...) follows. */
  walletTarget?: (network: string) => Promise<WalletTarget>;
}

/** The PAYIN order behind a form id; anything else (unknown, malformed, a payout) is NOT_FOUND. */
async function formOrder(deps: FormServiceDeps, id: string): Promise<OrderRow> {
  if (!isInternalId(id)) throw new AppError('NOT_FOUND');
  const order = await orderQueries.findOrderById(deps.database.db, id);
  if (order?.direction !== 'PAYIN') throw new AppError('NOT_FOUND');
  return order;
}

/** The live state the page follows (`GET /form/<id>/status`); crypto amounts in the asset's decimals. */
async function status(deps: FormServiceDeps, id: string) {
  const order = await formOrder(deps, id);
  const nowMs = deps.clock.now();
  const state = stateOf(order, nowMs);
  const precision = cryptoMethod(order.type)?.precision ?? 8;
  const crypto = order.method === 'crypto';
  return {
    status: order.status,
    state,
    remainingSeconds: state === 'pending' ? (remainingSeconds(order, nowMs) ?? 0) : 0,
    receiptStatus: order.receiptStatus,
    cryptoAmount: crypto && order.cryptoAmount !== null ? formatCrypto(order.cryptoAmount, precision) : null,
    receivedAmount:
      crypto && order.receivedAmount !== null && money(order.receivedAmount).gt(0)
        ? formatCrypto(order.receivedAmount, precision)
        : null,
  };
}

type LiveStatus = Awaited<ReturnType<typeof status>>;

/** What every form page shows, crypto or fiat. */
function pageBase(order: OrderRow, live: LiveStatus, merchant: Awaited<ReturnType<typeof findMerchant>>) {
  return {
    id: order.id,
    state: live.state,
    remainingSeconds: live.remainingSeconds,
    expiresAt: order.expiresAt?.toISOString() ?? null,
    receiptStatus: live.receiptStatus,
    currency: order.currency,
    type: order.type,
    // Who is asking for money, and where the payer goes back to (docs/decisions.md section 31).
    merchantName: merchant?.displayName ?? null,
    logoUrl: merchant?.logoUrl ?? null,
    returnUrl: order.returnUrl ?? merchant?.returnUrl ?? null,
    // A sandbox order says so and offers its outcomes as buttons (docs/decisions.md section 29).
    test: order.test,
    sandboxOutcomes: outcomesFor(order).filter((o) => o !== 'paid_other_amount'),
  };
}

type PageBase = ReturnType<typeof pageBase>;

/** A crypto order's page: the coin amounts, the wallet URI and its QR code while pending. */
async function cryptoPage(deps: FormServiceDeps, order: OrderRow, live: LiveStatus, base: PageBase) {
  const pending = live.state === 'pending';
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
    // The fiat amount and the coin's rate, when the order was asked in RUB (docs/decisions.md section 31).
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
    qr: pending ? await qrDataUrl(uri, { margin: 2, width: 240, errorCorrectionLevel: 'M' }) : null,
    bankLink: null,
    uploadAllowed: false,
    appeal: null,
    appealAllowed: false,
    appealLater: false,
  };
}

/** How a fiat order's requisite is shown: a QR code, a card, a phone number or an account. */
function requisiteKindOf(order: OrderRow): 'qr' | 'card' | 'phone' | 'account' {
  const need = requisiteNeedFor(order.type);
  if (order.type === 'qr_smart' || need?.kinds[0] === 'qr') return 'qr';
  if (/^\d{16,19}$/.test(order.pdAddress)) return 'card';
  if (/^\d{11}$/.test(order.pdAddress)) return 'phone';
  return 'account';
}

/** A fiat order's page: the requisite while pending, the upload, and the appeal once it failed. */
async function fiatPage(deps: FormServiceDeps, order: OrderRow, live: LiveStatus, base: PageBase) {
  const pending = live.state === 'pending';
  const appeal = pending ? null : await deps.appeals.latestFor(order.id);
  const appealAllowed =
    !pending && appeal?.status !== 'open' && appeal?.status !== 'accepted' && order.status === 'error'
      ? await deps.appeals.assertAppealable(order).then(
          () => true,
          () => false,
        )
      : false;
  const kind = requisiteKindOf(order);
  const qrPayload = order.pdEmv ?? (kind === 'qr' ? order.pdAddress : null);
  const shown =
    kind === 'card'
      ? formatCard(order.pdAddress)
      : kind === 'phone'
        ? formatPhone(order.pdAddress)
        : order.pdAddress;
  return {
    ...base,
    kind: 'fiat' as const,
    requisiteKind: kind,
    amount: money(order.payableAmount).toFixed(),
    shifted: !money(order.payableAmount).eq(order.amount),
    address: pending ? order.pdAddress : null,
    addressShown: pending ? shown : null,
    bank: pending ? order.pdBank : null,
    holder: pending ? order.pdHolderName : null,
    qr:
      pending && qrPayload
        ? await qrDataUrl(qrPayload, { margin: 2, width: 240, errorCorrectionLevel: 'M' })
        : null,
    // A payer on a phone cannot scan their own screen: the link opens the bank app (docs/decisions.md section 31).
    bankLink: pending ? bankAppLink(qrPayload) : null,
    uploadAllowed: FORM_TYPES.includes(order.type),
    appeal,
    appealAllowed,
    // The claim form waits hidden in a live pending page, shown if the order ends while open.
    appealLater: pending && !order.test,
  };
}

/** Everything the page template shows; requisites only while the order is pending. */
async function page(deps: FormServiceDeps, id: string) {
  const order = await formOrder(deps, id);
  const live = await status(deps, id);
  const merchant = await findMerchant(deps.database.db, order.merchantId);
  const base = pageBase(order, live, merchant);
  return order.method === 'crypto' ? cryptoPage(deps, order, live, base) : fiatPage(deps, order, live, base);
}

/**
 * The payer's receipt upload (`POST /form/<id>/receipt`): the same rules and codes as the merchant
 * upload; only for `card_pdf`, `sbp_pdf`, `qr_smart` while the order is pending.
 */
async function uploadReceipt(deps: FormServiceDeps, id: string, upload: MultipartUpload) {
  const order = await formOrder(deps, id);
  if (!FORM_TYPES.includes(order.type)) throw new AppError('NOT_FOUND');
  if (stateOf(order, deps.clock.now()) !== 'pending') throw new AppError('ORDER_STATE_CONFLICT');
  const receipt = await deps.receipts.attachFile(order, upload, 'form');
  return { receiptStatus: receipt.status };
}

/**
 * The payment form's data (docs/api.md "Payment form"): only what a payer needs — the amount, where
 * to pay, the time left, the state — never the merchant, fees, client fields or comment.
 */
export function createFormService(deps: FormServiceDeps) {
  return {
    formOrder: (id: string) => formOrder(deps, id),
    status: (id: string) => status(deps, id),
    page: (id: string) => page(deps, id),

    /**
     * The payer's late-payment claim (`POST /form/<id>/appeal`, docs/decisions.md section 27): a
     * receipt on a failed fiat PAYIN opens an appeal under the receipt rules; ORDER_STATE_CONFLICT otherwise.
     */
    async openAppeal(id: string, upload: MultipartUpload, ip: string) {
      const order = await formOrder(deps, id);
      return deps.appeals.openWithFile(order, upload, 'payer', { name: 'payer', ip });
    },

    /** A button of a test order's form: the order driven to `outcome`; ORDER_NOT_FOUND for a live one. */
    async sandbox(id: string, outcome: SandboxOutcome, ip: string) {
      const order = await formOrder(deps, id);
      await deps.sandbox.driveTestOrder(order.id, outcome, { name: 'payer:sandbox-form', ip });
    },

    uploadReceipt: (id: string, upload: MultipartUpload) => uploadReceipt(deps, id, upload),
  };
}

export type FormService = ReturnType<typeof createFormService>;

/** A QR as a PNG data URL; qrcode is loaded when a QR is first drawn, not at start. */
async function qrDataUrl(text: string, options: QRCodeToDataURLOptions): Promise<string> {
  const QRCode = (await import('qrcode')).default;
  return QRCode.toDataURL(text, options);
}
