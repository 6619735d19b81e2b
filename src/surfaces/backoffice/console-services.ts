import type { HoldersService, HolderUsers } from '../../modules/holders/index.js';
import type { LedgerService } from '../../modules/ledger/index.js';
import type { MerchantsService } from '../../modules/merchants/index.js';
import type { OperatorsService } from '../../modules/operators/index.js';
import type { OrdersService } from '../../modules/orders/index.js';
import type { RatesService } from '../../modules/rates/index.js';
import type { RequisitesService } from '../../modules/requisites/index.js';
import type { AuditService } from '../../platform/audit/index.js';
import type { AppealsService } from '../../rails/appeals/index.js';
import type { ChainsService } from '../../rails/chains/index.js';
import type { CryptoService } from '../../rails/crypto/index.js';
import type { DeviceAdmin, DeviceIngest, DeviceReview, RuleReview } from '../../rails/devices/index.js';
import type { PayoutsService } from '../../rails/payouts/index.js';
import type { ReceiptsService } from '../../rails/receipts/index.js';
import type { WebhooksService } from '../../rails/webhooks/index.js';

/** The services the operators' console works over: the same ones the admin API calls. */
export interface ConsoleServices {
  appeals: AppealsService;
  audit: AuditService;
  chains: ChainsService;
  crypto: CryptoService;
  deviceAdmin: DeviceAdmin;
  deviceIngest: DeviceIngest;
  deviceReview: DeviceReview;
  holders: HoldersService;
  /** Holders' accounts on their own page: the invitation (docs/decisions.md "The holder's own page"). */
  holderUsers: HolderUsers;
  ledger: LedgerService;
  merchants: MerchantsService;
  operators: OperatorsService;
  orders: OrdersService;
  payouts: PayoutsService;
  rates: RatesService;
  receipts: ReceiptsService;
  requisites: RequisitesService;
  /** The rules learned from the review queue (docs/decisions.md "Rules learned from the review queue"). */
  ruleReview: RuleReview;
  webhooks: WebhooksService;
}
