import { Type } from '@sinclair/typebox';
import type { preHandlerAsyncHookHandler, preValidationAsyncHookHandler } from 'fastify';
import { type App, errorResponses, MerchantHeaders } from '../../http/schemas.js';
import { assertOwnMerchantId, merchantOf } from '../auth/index.js';
import { type ParseContext, parseCreateOrder } from './create-order-command.js';
import {
  CreateOrderBodySchema,
  CreateOrderResponseSchema,
  OrderIdParams,
  OrderResponseSchema,
  OrdersQuerySchema,
  OrdersResponseSchema,
} from './orders-schemas.js';
import type { OrdersService } from './orders-service.js';
import { ReportsSchema } from './reports-schemas.js';

/** Merchant order routes: createOrder, order information, order list (docs/api.md "Endpoints"). */
export function ordersRoutes(
  app: App,
  deps: {
    orders: OrdersService;
    /** What parsing a createOrder body needs besides the body and the merchant. */
    parse: ParseContext;
    merchantAuth: preValidationAsyncHookHandler;
    limits: {
      createOrder: preHandlerAsyncHookHandler[];
      order: preHandlerAsyncHookHandler;
      orders: preHandlerAsyncHookHandler;
      reports: preHandlerAsyncHookHandler;
    };
  },
) {
  const { orders, merchantAuth, limits } = deps;

  app.post(
    '/merchant/createOrder',
    {
      preValidation: merchantAuth,
      preHandler: limits.createOrder,
      schema: {
        tags: ['merchant'],
        summary: 'Create a PAYIN (fiat or crypto) or PAYOUT order',
        headers: MerchantHeaders,
        body: CreateOrderBodySchema,
        response: { 200: CreateOrderResponseSchema, ...errorResponses },
      },
    },
    async (request) => {
      const merchant = assertOwnMerchantId(request, request.body.merchant_id);
      // Parsed once, here, into the typed command of its mode (create-order-command.ts).
      return orders.createOrder(merchant, parseCreateOrder(request.body, merchant, deps.parse));
    },
  );

  app.get(
    '/merchant/order/:id',
    {
      preValidation: merchantAuth,
      preHandler: limits.order,
      schema: {
        tags: ['merchant'],
        summary: 'Order information by internal or external id',
        headers: MerchantHeaders,
        params: OrderIdParams,
        response: { 200: OrderResponseSchema, ...errorResponses },
      },
    },
    async (request) => {
      const data = await orders.getOrder(merchantOf(request), request.params.id);
      return { success: true as const, ok: true as const, data, ...data };
    },
  );

  app.get(
    '/merchant/orders',
    {
      preValidation: merchantAuth,
      preHandler: limits.orders,
      schema: {
        tags: ['merchant'],
        summary: 'Orders of the merchant, newest first',
        headers: MerchantHeaders,
        querystring: OrdersQuerySchema,
        response: { 200: OrdersResponseSchema, ...errorResponses },
      },
    },
    async (request) => {
      const merchant = assertOwnMerchantId(request, request.query.merchant_id);
      const data = await orders.listMerchantOrders(merchant, request.query);
      return { success: true as const, ok: true as const, data, ...data };
    },
  );

  app.get(
    '/merchant/reports',
    {
      preValidation: merchantAuth,
      preHandler: limits.reports,
      schema: {
        tags: ['merchant'],
        summary: 'Dashboard figures: today and the last 30 days per payment type, live orders only',
        headers: MerchantHeaders,
        response: {
          200: Type.Object({ success: Type.Literal(true), data: ReportsSchema }),
          ...errorResponses,
        },
      },
    },
    async (request) => ({
      success: true as const,
      data: await orders.merchantReports(merchantOf(request).id, merchantOf(request).test === true),
    }),
  );
}
