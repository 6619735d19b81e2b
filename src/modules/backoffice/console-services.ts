import type { AppealsService } from '../appeals/index.js';
import type { AuditService } from '../audit/index.js';
import type { ChainsService } from '../chains/index.js';
import type { CryptoService } from '../crypto/index.js';
import type { DeviceAdmin, DeviceIngest, DeviceReview } from '../devices/index.js';
import type { LedgerService } from '../ledger/index.js';
import type { MerchantsService } from '../merchants/index.js';
import type { OperatorsService } from '../operators/index.js';
import type { OrdersService } from '../orders/index.js';
import type { PayoutsService } from '../payouts/index.js';
import type { RatesService } from '../rates/index.js';
import type { ReceiptsService } from '../receipts/index.js';
import type { RequisitesService } from '../requisites/index.js';
import type { WebhooksService } from '../webhooks/index.js';

/** The services the operators' console works over: the same ones the admin API calls. */
export interface ConsoleServices {
  appeals: AppealsService;
  audit: AuditService;
  chains: ChainsService;
  crypto: CryptoService;
  deviceAdmin: DeviceAdmin;
  deviceIngest: DeviceIngest;
  deviceReview: DeviceReview;
  ledger: LedgerService;
  merchants: MerchantsService;
  operators: OperatorsService;
  orders: OrdersService;
  payouts: PayoutsService;
  rates: RatesService;
  receipts: ReceiptsService;
  requisites: RequisitesService;
  webhooks: WebhooksService;
}
