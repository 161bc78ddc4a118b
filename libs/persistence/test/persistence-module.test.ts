import { Injectable, Module, type DynamicModule, type Type } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { uniqueTestId } from '@flowmesh/testing';
import { DataSource, type Repository } from 'typeorm';
import { afterAll, describe, expect, it } from 'vitest';
import { InjectRepository, PersistenceModule, type ServiceDataSourceOptions } from '../src/index.js';
import {
  CreateWidgets1700000000000,
  databaseUrlFor,
  dropDatabase,
  recordingLogger,
  Widget,
} from './fixtures.js';

const database = uniqueTestId('persistmod');
const CONFIG = Symbol('config');

@Injectable()
class WidgetService {
  constructor(@InjectRepository(Widget) private readonly widgets: Repository<Widget>) {}

  create(displayName: string): Promise<Widget> {
    return this.widgets.save({ displayName });
  }
}

@Module({
  imports: [PersistenceModule.forFeature([Widget])],
  providers: [WidgetService],
  exports: [WidgetService],
})
class WidgetModule {}

@Module({
  providers: [{ provide: CONFIG, useValue: { databaseUrl: databaseUrlFor(database) } }],
  exports: [CONFIG],
})
class ConfigModule {}

afterAll(async () => {
  await dropDatabase(database);
});

/** A testing module with the widget tables in `schema` (and `options`), compiled. */
function widgetsModule(
  schema: string,
  options: Partial<ServiceDataSourceOptions>,
  imports: Array<Type | DynamicModule> = [],
): Promise<TestingModule> {
  return Test.createTestingModule({
    imports: [
      PersistenceModule.forRoot({
        databaseUrl: databaseUrlFor(database),
        schema,
        entities: [Widget],
        migrations: [CreateWidgets1700000000000],
        logger: recordingLogger(),
        ...options,
      }),
      ...imports,
    ],
  }).compile();
}

describe('PersistenceModule', () => {
  it('prepares the database at init, injects DataSource and repositories, closes on shutdown', async () => {
    const schema = uniqueTestId('mod');
    const moduleRef = await widgetsModule(schema, {}, [WidgetModule]);
    const app = await moduleRef.init();

    const dataSource = app.get(DataSource);
    expect(dataSource.isInitialized).toBe(true);
    const widget = await app.get(WidgetService).create('sprocket');
    const [row] = await dataSource.query<Array<{ display_name: string }>>(
      `SELECT display_name FROM "${schema}".widget WHERE id = $1`,
      [widget.id],
    );
    expect(row).toEqual({ display_name: 'sprocket' });

    await app.close();
    expect(dataSource.isInitialized).toBe(false);
  });

  it('takes its options from an injected configuration with forRootAsync', async () => {
    const schema = uniqueTestId('modasync');
    const moduleRef = await Test.createTestingModule({
      imports: [
        PersistenceModule.forRootAsync({
          imports: [ConfigModule],
          inject: [CONFIG],
          useFactory: (config: { databaseUrl: string }) => ({
            databaseUrl: config.databaseUrl,
            schema,
            entities: [Widget],
            migrations: [CreateWidgets1700000000000],
            logger: recordingLogger(),
          }),
        }),
      ],
      providers: [{ provide: 'probe', useFactory: (ds: DataSource) => ds, inject: [DataSource] }],
    }).compile();
    const app = await moduleRef.init();
    try {
      const dataSource = app.get<DataSource>('probe');
      const tables = await dataSource.query<Array<{ table_name: string }>>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1',
        [schema],
      );
      expect(tables.map((t) => t.table_name)).toEqual(['migrations', 'widget']);
    } finally {
      await app.close();
    }
  });

  it('sets sessionSettings on every connection, and refuses a setting that is not plain', async () => {
    const schema = uniqueTestId('modsettings');
    const moduleRef = await widgetsModule(schema, {
      sessionSettings: { plan_cache_mode: 'force_generic_plan' },
    });
    const app = await moduleRef.init();
    try {
      const dataSource = app.get(DataSource);
      // pg_sleep holds each query a moment, so the three take three connections of the pool.
      const rows = await Promise.all(
        Array.from({ length: 3 }, () =>
          dataSource.query<Array<{ mode: string; path: string }>>(
            `SELECT current_setting('plan_cache_mode') AS mode, current_setting('search_path') AS path, pg_sleep(0.05)`,
          ),
        ),
      );
      expect(rows.map(([row]) => [row.mode, row.path])).toEqual(
        Array.from({ length: 3 }, () => ['force_generic_plan', schema]),
      );
    } finally {
      await app.close();
    }
    const bad = widgetsModule(schema, { sessionSettings: { work_mem: '64MB -c search_path=public' } });
    await expect(bad).rejects.toThrow(
      'sessionSettings.work_mem: "64MB -c search_path=public" is not a plain Postgres setting and value',
    );
  });

  it('fails start-up with the host in the message when Postgres is unreachable', async () => {
    const start = Test.createTestingModule({
      imports: [
        PersistenceModule.forRoot({
          databaseUrl: 'postgres://postgres@127.0.0.1:1/flowmesh',
          schema: 'unreachable',
          entities: [],
          migrations: [],
          connectAttempts: 1,
          logger: recordingLogger(),
        }),
      ],
    }).compile();
    await expect(start).rejects.toThrow(/cannot connect to PostgreSQL at 127\.0\.0\.1:1\/flowmesh/);
  });
});
