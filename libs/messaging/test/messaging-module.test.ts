import { defineRequest } from '@flowmesh/contracts';
import {
  HandleRequest,
  MESH_CONNECTION,
  MeshClient,
  MeshTransport,
  MessagingModule,
  type MeshConnection,
} from '@flowmesh/messaging';
import { TEST_STREAMS } from '@flowmesh/testing';
import { Controller, Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Payload } from '@nestjs/microservices';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MeshFixture, natsUrl } from './support/mesh-fixture.js';

const price = defineRequest(
  'pricing.quote.get',
  z.object({ sku: z.string() }),
  z.object({ cents: z.number().int() }),
);
const order = defineRequest(
  'orders.order.create',
  z.object({ sku: z.string() }),
  z.object({ total: z.number().int() }),
);

@Controller()
class PricingController {
  @HandleRequest(price)
  quote() {
    return { cents: 1250 };
  }
}

@Controller()
class OrdersController {
  private readonly pricing;

  constructor(mesh: MeshClient) {
    this.pricing = mesh.client({ quote: price });
  }

  @HandleRequest(order)
  async create(@Payload() req: { sku: string }) {
    const { cents } = await this.pricing.quote({ sku: req.sku });
    return { total: cents * 2 };
  }
}

describe('MessagingModule wiring in a hybrid Nest app', () => {
  let mesh: MeshFixture;
  let app: INestApplication;
  let conn: MeshConnection;

  beforeAll(async () => {
    mesh = await MeshFixture.create('module');
    @Module({
      imports: [MessagingModule.forRoot({ url: natsUrl(), name: 'orders', prefix: mesh.prefix })],
      controllers: [PricingController, OrdersController],
    })
    class OrdersAppModule {}

    app = await NestFactory.create(OrdersAppModule, { logger: false });
    conn = app.get<MeshConnection>(MESH_CONNECTION);
    app.connectMicroservice(
      { strategy: new MeshTransport(conn, { service: 'orders', streams: TEST_STREAMS }) },
      { inheritAppConfig: true },
    );
    await app.startAllMicroservices();
    await app.init();
  });

  afterAll(async () => {
    await mesh?.dispose();
  });

  it('injects MeshClient into handlers, and the transport serves them on the shared connection', async () => {
    const caller = new MeshClient(await mesh.connect('caller'));
    await expect(caller.request(order, { sku: 'book' })).resolves.toEqual({ total: 2500 });
    expect(app.get(MeshClient)).toBeInstanceOf(MeshClient);
  });

  it('closing the app stops the transport and drains the connection', async () => {
    await app.close();
    expect(conn.nc.isClosed()).toBe(true);
  });
});
